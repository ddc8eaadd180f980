import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorCycleError } from '../../src/api/errors.js';
import { walkPages } from '../../src/api/cursor-walk.js';
import { FakeClient, pagedTenders, type Responder } from '../support/fake-client.js';
import { runInProcess as run } from '../support/run.js';

/** 25 tenders a page; the page asked for with `loopAt` answers with the cursor of `backTo` (a service paging in a loop). */
function looping(n: number, loopAt: string, backTo: string): Responder {
  const good = pagedTenders(n);
  return async (request, i) => {
    const answer = (await good(request, i)) as { json: { page: { nextCursor: string | null } } };
    if (request.body.cursor === loopAt) answer.json.page.nextCursor = backTo;
    return answer;
  };
}

async function pagesOf(client: FakeClient, opts: Partial<Parameters<typeof walkPages>[1]> = {}) {
  const cursors: (string | undefined)[] = [];
  const error = await (async () => {
    for await (const page of walkPages(client, { path: '/x', body: { limit: 25 }, ...opts })) cursors.push(page.cursor);
  })().catch((err: unknown) => err);
  return { cursors, error };
}

describe('walkPages: a cursor that comes back ends the walk', () => {
  it('a cursor handed back again ends the walk before the page that sent it, naming both pages', async () => {
    const client = new FakeClient(looping(500, 'c75', 'c25'));
    const { cursors, error } = await pagesOf(client);
    expect(cursors).toEqual([undefined, 'c25', 'c50']);
    expect(error).toBeInstanceOf(CursorCycleError);
    expect((error as Error).message).toBe(
      'the service sent a cursor already used on POST /x: page 4 points back to page 2 (a paging loop), so the walk stops after page 3',
    );
    expect(client.requests).toHaveLength(4);
  });

  it('a page that names its own cursor as the next one', async () => {
    const client = new FakeClient(looping(500, 'c50', 'c50'));
    const { cursors, error } = await pagesOf(client);
    expect(cursors).toEqual([undefined, 'c25']);
    expect((error as Error).message).toMatch(/page 3 points back to page 3 /);
  });

  it('counts pages on from where a resumed walk starts, the starting cursor included', async () => {
    const client = new FakeClient(looping(500, 'c100', 'c50'));
    const { cursors, error } = await pagesOf(client, { cursor: 'c50', firstPage: 3 });
    expect(cursors).toEqual(['c50', 'c75']);
    expect((error as Error).message).toMatch(/page 5 points back to page 3 /);
  });

  it('a walk without repeats is untouched, to its last page', async () => {
    const { cursors, error } = await pagesOf(new FakeClient(pagedTenders(100)));
    expect(cursors).toEqual([undefined, 'c25', 'c50', 'c75']);
    expect(error).toBeUndefined();
  });
});

describe('a paging loop through the CLI', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tenders-pager-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('exits 1 with one line naming the page', async () => {
    const r = await run(['export', '-f', 'ndjson', '-n', '25'], new FakeClient(looping(500, 'c75', 'c25')));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'tenders: the service sent a cursor already used on POST /api/v1/tenders/search: page 4 points back to page 2 (a paging loop), so the walk stops after page 3\n',
    );
    expect(r.stdout.trim().split('\n')).toHaveLength(75);
  });

  it('in a --parallel walk, names the chain that looped', async () => {
    const good = pagedTenders(100, (i) => ({ publicationDate: new Date(Date.UTC(2026, 0, 1) - i * 86_400_000).toISOString().slice(0, 10) }));
    // Only the FRA chain loops.
    const respond: Responder = async (request, i) => {
      const answer = (await good(request, i)) as { json: { page: { nextCursor: string | null } } };
      if ((request.body.buyerCountries as string[])[0] === 'FRA' && request.body.cursor === 'c75') answer.json.page.nextCursor = 'c25';
      return answer;
    };
    const r = await run(['export', '-f', 'ndjson', '-n', '25', '-c', 'DEU,FRA', '--parallel', '2'], new FakeClient(respond));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'tenders: the service sent a cursor already used on POST /api/v1/tenders/search in the chain of country FRA: page 4 points back to page 2 (a paging loop), so the walk stops after page 3\n',
    );
  });

  it('with -o, the partial file and its state stay, and --resume finishes once the service pages right', async () => {
    const file = join(dir, 'loop.ndjson');
    const args = ['export', '-f', 'ndjson', '-n', '25', '-o', file];
    const stopped = await run(args, new FakeClient(looping(500, 'c75', 'c25')));
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toMatch(
      /^tenders: the service sent a cursor already used .* so the walk stops after page 3; the 75 tenders written so far are kept in .*loop\.ndjson\.partial: run the same command with --resume to continue\n$/,
    );
    expect((await readdir(dir)).sort()).toEqual(['loop.ndjson.partial', 'loop.ndjson.resume.json']);

    const fixed = new FakeClient(pagedTenders(500));
    const resumed = await run([...args, '--resume'], fixed);
    expect(resumed.code).toBe(0);
    expect(fixed.requests[0]!.body.cursor).toBe('c75'); // page 4 asked for again, its loop never written
    const clean = await run(['export', '-f', 'ndjson', '-n', '25'], new FakeClient(pagedTenders(500)));
    expect(await readFile(file, 'utf8')).toBe(clean.stdout);
    expect(await readdir(dir)).toEqual(['loop.ndjson']);
  });
});
