import { describe, expect, it } from 'vitest';
import { renderCounts } from '../../src/output/counts.js';
import type { Responder } from '../support/fake-client.js';
import type { MemoryIOOptions } from '../support/io.js';
import { runInProcess } from '../support/run.js';

const COUNTS: Record<string, [number, boolean]> = { DEU: 814, FRA: 2000, ITA: 10000, open: 5, closed: 7 } as never;
const totals: Responder = ({ body }) => {
  const value = ((body.buyerCountries ?? body.statuses) as string[])[0]!;
  const count = (COUNTS as unknown as Record<string, number>)[value] ?? 0;
  return { json: { tenders: [], page: { nextCursor: null, total: { count, capped: value === 'ITA' } } } };
};

const run = (argv: string[], opts: MemoryIOOptions = {}, respond: Responder = totals) => runInProcess(argv, respond, opts);

describe('count --by', () => {
  it('sends one first-page request per value, limit 1, and prints a table with proportional bars on a terminal', async () => {
    const r = await run(['count', '-c', 'DEU,FRA', '-s', 'open', '--by', 'country', '--parallel', '2'], { stdoutTTY: true, columns: 40, env: { NO_COLOR: '1' } });
    expect(r.code).toBe(0);
    expect(r.client.requests.map((q) => q.body)).toEqual([
      { buyerCountries: ['DEU'], statuses: ['open'], limit: 1 },
      { buyerCountries: ['FRA'], statuses: ['open'], limit: 1 },
    ]);
    expect(r.stdout).toBe(
      ['country  count', `DEU        814  ${'█'.repeat(9)}▊`, `FRA      2,000  ${'█'.repeat(24)}`, 'total    2,814', ''].join('\n'),
    );
  });

  it('colours the header and bars unless NO_COLOR; no bars into a pipe', async () => {
    const coloured = await run(['count', '-c', 'DEU,FRA', '--by', 'country'], { stdoutTTY: true, columns: 60 });
    expect(coloured.stdout).toContain('\x1b[1mcountry  count\x1b[22m');
    expect(coloured.stdout).toContain('\x1b[36m█');
    const piped = await run(['count', '-c', 'DEU,FRA', '--by', 'country']);
    expect(piped.stdout).toBe('country  count\nDEU        814\nFRA      2,000\ntotal    2,814\n');
  });

  it('--help says what --parallel does for count: counts at once, no chains to merge', async () => {
    const help = (await run(['count', '--help'])).stdout;
    // The local filters widen the option column: the text may wrap anywhere.
    expect(help.replace(/\s+/g, ' ')).toMatch(/--parallel <n> with --by: how many counts are requested at once \(1-16\) \(default: 1\)/);
    expect(help).not.toContain('merged');
  });

  it('prints the sum as N+ when a partition is capped', async () => {
    const r = await run(['count', '-c', 'DEU,ITA', '--by', 'country']);
    expect(r.stdout).toBe('country    count\nDEU          814\nITA      10,000+\ntotal    10,814+\n');
  });

  it.each([
    ['csv', 'status,count,capped\nopen,5,false\nclosed,7,false\n'],
    ['ndjson', '{"status":"open","count":5,"capped":false}\n{"status":"closed","count":7,"capped":false}\n'],
    ['json', '{"by":"status","count":12,"capped":false,"partitions":[{"status":"open","count":5,"capped":false},{"status":"closed","count":7,"capped":false}]}\n'],
  ])('--format %s for pipes', async (format, expected) => {
    expect((await run(['count', '-s', 'open,closed', '--by', 'status', '-f', format])).stdout).toBe(expected);
  });

  it.each([
    [['count', '--by', 'country'], 'count --by country counts each country you name: list them, e.g. -c DEU,FRA,ITA'],
    [['count', '-c', 'DEU', '--by', 'status'], 'count --by status counts each status you name: list them, e.g. -s open,closed'],
    [['count', '-f', 'csv'], 'count --format csv is for one count per part: add --by country or --by status'],
  ])('%j is a usage error before any request', async (argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`tenders: ${message}\n`);
    expect(r.client.requests).toHaveLength(0);
  });

  it('fails with exit 1 when a partition cannot be counted, sending nothing more', async () => {
    const failing: Responder = ({ body }) =>
      (body.buyerCountries as string[])[0] === 'FRA' ? { json: { tenders: [], page: { nextCursor: null, total: null } } } : totals({ path: '', body }, 0);
    const r = await run(['count', '-c', 'DEU,FRA,ITA,ESP', '--by', 'country'], {}, failing);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: .*the first page has no "page.total"/);
    expect(r.client.requests).toHaveLength(2);
  });

  it('keeps plain count as it was', async () => {
    expect((await run(['count', '-c', 'ITA'])).stdout).toBe('10000+\n');
    expect((await run(['count', '-c', 'ITA', '-f', 'json'])).stdout).toBe('{"count":10000,"capped":true}\n');
  });
});

describe('renderCounts', () => {
  it('leaves bars out when the terminal is too narrow for them, and draws none for zero', () => {
    const rows = [{ value: 'DEU', count: 0, capped: false }, { value: 'FRA', count: 3, capped: false }];
    expect(renderCounts('country', rows, 'table', { width: 18, bars: true, color: false })).toBe('country  count\nDEU          0\nFRA          3\ntotal        3\n');
    expect(renderCounts('country', rows, 'text', { width: 30, bars: true, color: false })).toContain(`FRA          3  ${'█'.repeat(14)}`);
  });
});
