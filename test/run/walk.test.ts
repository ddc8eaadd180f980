import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { FakeClient, pagedTenders, type Responder } from '../support/fake-client.js';
import { runInProcess } from '../support/run.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tenders-walk-'));
});

const lines = (text: string) => text.split('\n').filter(Boolean);
const ids = (text: string) => lines(text).map((line) => (JSON.parse(line) as { id: string }).id);

describe('a walk', () => {
  it('search prints one page and the hints of the next', async () => {
    const r = await runInProcess(['search', '-n', '10', '-v'], pagedTenders(35));
    expect(r.code).toBe(0);
    expect(ids(r.stdout)).toEqual(Array.from({ length: 10 }, (_, i) => `T-${i + 1}`));
    expect(r.client.requests).toHaveLength(1);
    expect(r.stderr).toContain('Showing 1–10 of 35 tenders.');
    expect(r.stderr).toContain('Next page:\ntenders search -n 10 -v --cursor c10 --shown 10\n');
  });

  it('the next page, reached from the hint, says where it is: Showing 11–20; without --shown, how many', async () => {
    const r = await runInProcess(['search', '-n', '10', '-v', '--cursor', 'c10', '--shown', '10'], pagedTenders(35));
    expect(r.stderr).toContain('Showing 11–20 tenders.\nNext page:\ntenders search -n 10 -v --cursor c20 --shown 20\n');
    const bare = await runInProcess(['search', '-n', '10', '-v', '--cursor', 'c30'], pagedTenders(35));
    expect(bare.stderr).toContain('Showing 5 tenders.\n');
    expect((await runInProcess(['search', '--shown', '3'], pagedTenders(5))).stderr).toBe(
      'tenders: --shown numbers the results of a page reached by --cursor: use it with --cursor\n',
    );
  });

  it('export -v -o FILE keeps its closing line (verbose adds detail, never takes the result away)', async () => {
    const file = join(dir, 'out.csv');
    const r = await runInProcess(['export', '-v', '-o', file], pagedTenders(1));
    expect(r.stderr).toMatch(/\nWrote 1 tender to .*out\.csv \(\d+ B\) in [\d.]+ s\.\n$/);
  });

  it('--max gives a next-page hint when it ends on a page boundary, none inside a page; plurals agree', async () => {
    const r = await runInProcess(['search', '--max', '4', '-v'], pagedTenders(35));
    expect(r.stderr).toContain('Showing 1–4 of 35 tenders.\nNext page:\ntenders search --max 4 -v --cursor c4 --shown 4\n');
    const cut = await runInProcess(['search', '--max', '15', '-n', '10', '--all', '-v'], pagedTenders(35));
    expect(cut.stderr).toContain('Showing 1–15 of 35 tenders.\n');
    expect(cut.stderr).not.toContain('Next page');
    const one = await runInProcess(['search', '-v'], pagedTenders(1));
    expect(one.stderr).toContain('Showing 1 tender.\n');
    expect(one.stderr).toMatch(/\* 1 tender in 1 page, 0 duplicates dropped, [\d.]+ s\n/);
  });

  it('--max stops after N results and asks for pages no larger than N', async () => {
    const r = await runInProcess(['search', '--max', '30', '--all'], pagedTenders(500));
    expect(lines(r.stdout)).toHaveLength(30);
    expect(r.client.requests.map((q) => q.body.limit)).toEqual([30]);
  });

  it('--all follows the cursor to the end, sending the identical body plus cursor', async () => {
    const r = await runInProcess(['search', '--all', '-n', '40', '-s', 'open'], pagedTenders(100));
    expect(lines(r.stdout)).toHaveLength(100);
    expect(r.client.requests.map((q) => q.body)).toEqual([
      { limit: 40, statuses: ['open'] },
      { limit: 40, statuses: ['open'], cursor: 'c40' },
      { limit: 40, statuses: ['open'], cursor: 'c80' },
    ]);
  });

  it('drops a tender repeated across a page boundary and says how many with --verbose', async () => {
    const base = pagedTenders(60);
    const repeating: Responder = async (request, n) => {
      const page = (await base(request, n)) as { json: { tenders: unknown[] } };
      if (n > 1) page.json.tenders.unshift({ id: `T-${(n - 1) * 25}`, title: 'again' });
      return page;
    };
    const r = await runInProcess(['export', '-f', 'ndjson', '-n', '25', '-v'], repeating);
    expect(ids(r.stdout)).toEqual(Array.from({ length: 60 }, (_, i) => `T-${i + 1}`));
    expect(r.stderr).toMatch(/60 tenders in 3 pages, 2 duplicates dropped/);
  });

  it('warns when a complete walk wrote another number of rows than the uncapped total', async () => {
    const shrinking: Responder = async (request, n) => {
      const page = (await pagedTenders(30)(request, n)) as { json: { page: { total: unknown } } };
      if (n === 1) page.json.page.total = { count: 31, capped: false };
      return page;
    };
    const r = await runInProcess(['export', '-f', 'ndjson'], shrinking);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('tenders: warning: the service counted 31 tenders but 30 were written: the data changed while paging\n');
  });

  it('says nothing about counts when the total is capped', async () => {
    const capped: Responder = async (request, n) => {
      const page = (await pagedTenders(30)(request, n)) as { json: { page: { total: unknown } } };
      if (n === 1) page.json.page.total = { count: 10_000, capped: true };
      return page;
    };
    expect((await runInProcess(['export', '-f', 'ndjson'], capped)).stderr).toBe('');
  });

  it('a closed stdout ends the walk quietly with exit 0 and no further requests', async () => {
    const client = new FakeClient(pagedTenders(1000));
    const controller = new AbortController();
    const { memoryIO } = await import('../support/io.js');
    const { execute } = await import('../../src/cli.js');
    const t = memoryIO({ env: { TENDERS_BASE_URL: 'http://service.test' } });
    t.stdout.once('pipe', () => undefined);
    const writes = t.stdout.write.bind(t.stdout);
    let pages = 0;
    t.stdout.write = ((chunk: string, cb?: (err?: Error | null) => void) => {
      if (++pages === 2) {
        const err = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
        queueMicrotask(() => t.stdout.emit('error', err));
        return false;
      }
      return writes(chunk, cb);
    }) as typeof t.stdout.write;
    const code = await execute(['export', '-f', 'ndjson'], t.io, { signal: controller.signal, createClient: async () => client });
    expect(code).toBe(0);
    expect(client.requests.length).toBeLessThanOrEqual(3);
    expect(client.closed).toBe('forced');
  });
});

describe('an export into a file', () => {
  it('appears whole, with no partial or state left behind', async () => {
    const file = join(dir, 'out.ndjson');
    const r = await runInProcess(['export', '-f', 'ndjson', '-n', '10', '-o', file], pagedTenders(45));
    expect(r.code).toBe(0);
    expect(ids(await readFile(file, 'utf8'))).toHaveLength(45);
    expect(await readdir(dir)).toEqual(['out.ndjson']);
  });

  it('keeps its partial and state when a page fails, and --resume finishes it identically without re-fetching', async () => {
    const file = join(dir, 'out.csv');
    const clean = join(dir, 'clean.csv');
    expect((await runInProcess(['export', '-n', '10', '-o', clean], pagedTenders(45))).code).toBe(0);

    const failing: Responder = async (request, n) => (n === 3 ? { status: 400, json: { message: 'bad luck' } } : pagedTenders(45)(request, n));
    const failed = await runInProcess(['export', '-n', '10', '-o', file], failing);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/the 20 tenders written so far are kept in .*out\.csv\.partial: run the same command with --resume/);
    expect((await readdir(dir)).sort()).toEqual(['clean.csv', 'out.csv.partial', 'out.csv.resume.json']);

    const resumed = await runInProcess(['export', '-n', '10', '-o', file, '--resume'], pagedTenders(45));
    expect(resumed.code).toBe(0);
    expect(resumed.client.requests[0]!.body.cursor).toBe('c20');
    expect(resumed.client.requests).toHaveLength(3);
    expect(await readFile(file, 'utf8')).toBe(await readFile(clean, 'utf8'));
    expect((await readdir(dir)).sort()).toEqual(['clean.csv', 'out.csv']);
  });

  it('--resume of another query starts afresh and says so', async () => {
    const file = join(dir, 'out.csv');
    const failing: Responder = async (request, n) => (n === 2 ? { status: 400, json: { message: 'no' } } : pagedTenders(45)(request, n));
    expect((await runInProcess(['export', '-n', '10', '-o', file], failing)).code).toBe(1);
    const other = await runInProcess(['export', '-n', '10', '-s', 'open', '-o', file, '--resume'], pagedTenders(45));
    expect(other.code).toBe(0);
    expect(other.stderr).toMatch(/was of a different query or format; starting afresh/);
    expect(other.client.requests[0]!.body.cursor).toBeUndefined();
  });

  it('--resume without a saved state warns and starts afresh', async () => {
    const r = await runInProcess(['export', '-o', join(dir, 'new.csv'), '--resume'], pagedTenders(5));
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/no interrupted export of .*new\.csv to resume; starting afresh/);
  });

  it('an interruption leaves the previous file intact and the export resumable', async () => {
    const file = join(dir, 'out.ndjson');
    const controller = new AbortController();
    const interrupting: Responder = async (request, n) => {
      if (n === 3) controller.abort(new InterruptedError('SIGINT'));
      return pagedTenders(45)(request, n);
    };
    const r = await runInProcess(['export', '-f', 'ndjson', '-n', '10', '-o', file], interrupting, { signal: controller.signal });
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/^tenders: interrupted by SIGINT; the 20 tenders written so far are kept/);
    expect((await readdir(dir)).sort()).toEqual(['out.ndjson.partial', 'out.ndjson.resume.json']);
  });
});
