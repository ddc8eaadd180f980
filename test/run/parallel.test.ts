import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Responder } from '../support/fake-client.js';
import { runInProcess } from '../support/run.js';
import { sandboxResponder } from '../support/sandbox-client.js';

const service = sandboxResponder(3000, 5);
const run = (argv: string[], respond: Responder = service, opts: { signal?: AbortSignal; env?: Record<string, string> } = {}) =>
  runInProcess(argv, respond, opts);

const COUNTRIES = ['-c', 'DEU,FRA,ITA,ESP'];
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tenders-parallel-'));
});

describe('export --parallel, in-process against the sandbox service', () => {
  it.each([
    ['csv', []],
    ['ndjson', ['--sort', 'deadline']],
    ['json', ['--sort', 'estimatedValue', '--order', 'asc']],
    ['csv', ['--sort', 'publicationDate', '--order', 'asc']],
    ['ndjson', ['--sort', 'deadline', '--order', 'desc']],
    ['json', ['--sort', 'estimatedValue']],
  ])('-f %s %s writes what the single walk writes, byte for byte', async (format, sort) => {
    const args = ['export', '-f', format, ...COUNTRIES, ...sort, '-n', '40'];
    const single = await run(args);
    const merged = await run([...args, '--parallel', '3']);
    expect(merged.code).toBe(0);
    expect(merged.stderr).toBe('');
    expect(single.stdout.length).toBeGreaterThan(1000);
    expect(merged.stdout).toBe(single.stdout);
  });

  it('walks one chain per country, each sending its identical body plus cursor', async () => {
    const r = await run(['export', '-f', 'ndjson', ...COUNTRIES, '-s', 'open', '--parallel', '2']);
    const chains = new Map<string, Record<string, unknown>[]>();
    for (const { body } of r.client.requests) {
      const key = JSON.stringify(body.buyerCountries);
      chains.set(key, [...(chains.get(key) ?? []), body]);
    }
    expect([...chains.keys()]).toEqual(['["DEU"]', '["FRA"]', '["ITA"]', '["ESP"]']);
    for (const bodies of chains.values()) {
      expect(bodies[0]).not.toHaveProperty('cursor');
      bodies.forEach(({ cursor, ...rest }, i) => {
        expect(rest).toEqual(bodies[0]);
        if (i > 0) expect(cursor).toEqual(expect.any(String));
      });
    }
  });

  it('splits by status when one country is named, and says when there is nothing to split', async () => {
    const byStatus = await run(['export', '-f', 'ndjson', '-c', 'DEU', '-s', 'open,closed', '--parallel', '2', '-v']);
    expect(byStatus.stderr).toContain('* --parallel 2: 2 chains, one per status, at most 2 requests in flight');
    expect(byStatus.stdout).toBe((await run(['export', '-f', 'ndjson', '-c', 'DEU', '-s', 'open,closed'])).stdout);
    const one = await run(['export', '-f', 'ndjson', '-c', 'DEU', '--parallel', '4', '-v']);
    expect(one.stderr).toContain('* --parallel 4: nothing to split (the query names fewer than two countries and statuses): one chain');
  });

  it('stops at --max in merged order', async () => {
    const r = await run(['search', '--max', '30', '-f', 'ndjson', ...COUNTRIES, '--parallel', '4']);
    expect(r.code).toBe(0);
    const single = await run(['search', '--max', '30', '-f', 'ndjson', ...COUNTRIES]);
    expect(r.stdout).toBe(single.stdout);
    expect(r.stdout.trim().split('\n')).toHaveLength(30);
  });

  it('writes a result found in two chains once and counts it', async () => {
    // Two status chains that both return T-2 (its status changed while paging).
    const pages: Record<string, unknown[]> = {
      open: [{ id: 'T-3', publicationDate: '2024-03-01' }, { id: 'T-2', publicationDate: '2024-02-01' }],
      closed: [{ id: 'T-2', publicationDate: '2024-02-01' }, { id: 'T-1', publicationDate: '2024-01-01' }],
    };
    const overlap: Responder = ({ body }) => ({ json: { tenders: pages[(body.statuses as string[])[0]!], page: { nextCursor: null, total: { count: 2, capped: false } } } });
    const r = await run(['export', '-f', 'ndjson', '-s', 'open,closed', '--parallel', '2', '-v'], overlap);
    expect(r.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(['T-3', 'T-2', 'T-1']);
    expect(r.stderr).toContain('* 3 tenders in 2 pages, 1 duplicate dropped');
    expect(r.stderr).toContain('tenders: warning: the service counted 4 tenders but 3 were written: the data changed while paging');
  });

  it('ends with exit 1 and no mis-sorted file when a chain is out of order', async () => {
    const missorted: Responder = ({ body }) => ({
      json: {
        tenders: (body.buyerCountries as string[])[0] === 'FRA' ? [{ id: 'F-1', deadline: '2025-01-01' }, { id: 'F-2', deadline: '2024-01-01' }] : [{ id: 'D-1', deadline: '2025-01-01' }],
        page: { nextCursor: null, total: { count: 2, capped: false } },
      },
    });
    const file = join(dir, 'missorted.csv');
    const r = await run(['export', '-c', 'DEU,FRA', '--sort', 'deadline', '--parallel', '2', '-o', file], missorted);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'tenders: the FRA chain is not in deadline asc (read from deadline) order: id "F-2" (2024-01-01) came after id "F-1" (2025-01-01); ' +
        'the merge of --parallel relies on that order: check --sort-path, or run without --parallel\n',
    );
    expect(await readdir(dir)).not.toContain('missorted.csv');
  });

  it('reads the sort value where --sort-path (or TENDERS_SORT_PATHS) says', async () => {
    const moved: Responder = ({ body }) => ({
      json: { tenders: [{ id: `${(body.buyerCountries as string[])[0]}-1`, value: { eur: body.buyerCountries![0 as never] === 'DEU' ? 5 : 7 } }], page: { nextCursor: null, total: { count: 1, capped: false } } },
    });
    const args = ['export', '-f', 'ndjson', '-c', 'DEU,FRA', '--sort', 'estimatedValue', '--parallel', '2'];
    expect((await run(args, moved)).code).toBe(1);
    const ok = await run([...args, '--sort-path', 'estimatedValue=value.eur'], moved);
    expect(ok.stdout).toBe('{"id":"FRA-1","value":{"eur":7}}\n{"id":"DEU-1","value":{"eur":5}}\n');
    expect((await run(args, moved, { env: { TENDERS_SORT_PATHS: 'estimatedValue=value.eur' } })).stdout).toBe(ok.stdout);
  });

  it('sums the chains\' totals for the count-integrity check, capped when any chain is', async () => {
    const counts: Responder = ({ body }) => ({
      json: {
        tenders: [{ id: (body.buyerCountries as string[])[0], publicationDate: '2024-01-01' }],
        page: { nextCursor: null, total: { count: 2, capped: (body.buyerCountries as string[])[0] === 'ITA' } },
      },
    });
    expect((await run(['export', '-c', 'DEU,FRA', '--parallel', '2'], counts)).stderr).toContain('the service counted 4 tenders but 2 were written');
    expect((await run(['export', '-c', 'DEU,ITA', '--parallel', '2'], counts)).stderr).toBe('');
  });

  it.each([
    [['export', '--parallel', '0'], "--parallel takes a whole number from 1 to 16, not '0'"],
    [['export', '--parallel', '17'], "--parallel takes a whole number from 1 to 16, not '17'"],
    [['search', '--parallel', '2', '-c', 'DEU,FRA'], '--parallel walks every page of each chain: use it with --all or --max'],
    [['search', '--all', '--parallel', '2', '--cursor', 'abc'], '--cursor continues one cursor chain: leave out --parallel'],
    [['export', '--sort-path', 'size=x'], "--sort-path takes FIELD=PATH, FIELD one of publicationDate, deadline, estimatedValue and PATH a dot path such as estimatedValue.amountEur, not 'size=x'"],
  ])('%j is a usage error before any request', async (argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`tenders: ${message}\n`);
    expect(r.client.requests).toHaveLength(0);
  });

  it('takes --parallel on orgs tenders --all, not on orgs search', async () => {
    const path = '/api/v1/organisations/ORG-DEU-0001/tenders/search';
    const org: Responder = ({ path: p, body }) => ({
      json: { tenders: p === path ? [{ id: (body.statuses as string[])[0], publicationDate: '2024' }] : [], page: { nextCursor: null, total: { count: 1, capped: false } } },
    });
    const r = await run(['orgs', 'tenders', 'ORG-DEU-0001', '--all', '-s', 'a,b', '--parallel', '2', '-f', 'ndjson'], org);
    expect(r.stdout).toBe('{"id":"b","publicationDate":"2024"}\n{"id":"a","publicationDate":"2024"}\n');
    expect((await run(['orgs', 'search', '--parallel', '2'])).code).toBe(2);
  });
});

describe('export --parallel -o FILE --resume, in-process', () => {
  it('continues each chain where its unwritten rows start, to a file identical to an uninterrupted run', async () => {
    const args = ['export', ...COUNTRIES, '--sort', 'deadline', '-n', '25', '--parallel', '3'];
    const clean = join(dir, 'clean.csv');
    expect((await run([...args, '-o', clean])).code).toBe(0);
    const file = join(dir, 'resumed.csv');
    // The tenth request gets a broken answer: the run fails after some pages are written.
    const failing = (): Responder => {
      let n = 0;
      return (request) => (++n > 9 ? { status: 200, json: { broken: true } } : service(request, n));
    };
    const failed = await run([...args, '-o', file], failing());
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/kept in .*resumed\.csv\.partial: run the same command with --resume to continue\n$/);
    const state = JSON.parse(await readFile(`${file}.resume.json`, 'utf8')) as { partitions: { position: { skip: number } }[] };
    expect(state.partitions).toHaveLength(4);
    const resumed = await run([...args, '-o', file, '--resume']);
    expect(resumed.code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(await readFile(clean, 'utf8'));
    // A resume with another --parallel is another plan: it starts afresh.
    await run([...args, '-o', file], failing());
    const other = await run([...args.slice(0, -1), '2', '-o', file, '--resume']);
    expect(other.stderr).toMatch(/was of a different query or format; starting afresh/);
  });
});
