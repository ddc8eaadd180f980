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
    expect(piped.stdout).toBe('country  count\nDEU        814\nFRA       2000\ntotal     2814\n'); // plain numbers, as count prints
    expect((await run(['count', '-c', 'DEU,FRA', '--by', 'country'], { stdoutTTY: true, env: { NO_COLOR: '1' } })).stdout).toContain('FRA      2,000');
  });

  it('--help says what --parallel does for count: counts at once, no chains to merge', async () => {
    const help = (await run(['count', '--help'])).stdout;
    // The local filters widen the option column: the text may wrap anywhere.
    expect(help.replace(/\s+/g, ' ')).toMatch(/--parallel <n> with --by: how many counts are requested at once \(1-16\) \(default: 1; 4 for every country\)/);
    expect(help).not.toContain('merged');
  });

  it('prints the sum as N+ when a partition stays capped, and says which counts are lower bounds', async () => {
    const r = await run(['count', '-c', 'DEU,ITA', '-s', 'open', '--by', 'country'], { stdoutTTY: true, columns: 20, env: { NO_COLOR: '1' } });
    expect(r.stdout).toBe('country    count\nDEU          814\nITA      10,000+\ntotal    10,814+\n');
    expect(r.stderr).toBe(
      'tenders: warning: ITA: its count is a lower bound (N+): the service stops counting at 10,000 and splitting by status did not bring every part under it\n',
    );
  });

  it.each([
    ['csv', 'status,count,capped\nopen,5,false\nclosed,7,false\n'],
    ['ndjson', '{"status":"open","count":5,"capped":false}\n{"status":"closed","count":7,"capped":false}\n'],
    ['json', '{"by":"status","count":12,"capped":false,"partitions":[{"status":"open","count":5,"capped":false},{"status":"closed","count":7,"capped":false}]}\n'],
  ])('--format %s for pipes', async (format, expected) => {
    expect((await run(['count', '-s', 'open,closed', '--by', 'status', '-f', format])).stdout).toBe(expected);
  });

  it.each([
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

  it('-f table --by is the table of the default format, on a terminal and into a pipe', async () => {
    const argv = ['count', '-c', 'DEU,ITA', '--by', 'country'];
    for (const opts of [{}, { stdoutTTY: true, columns: 50, env: { NO_COLOR: '1' } }]) {
      const table = await run([...argv, '-f', 'table'], opts);
      expect(table.code).toBe(0);
      expect(table.stdout).toBe((await run(argv, opts)).stdout);
      expect(table.stdout).toMatch(/^country +count\n/);
    }
  });

  it('keeps plain count as it was', async () => {
    expect((await run(['count', '-c', 'ITA'])).stdout).toBe('10000+\n');
    expect((await run(['count', '-c', 'ITA', '-f', 'json'])).stdout).toBe('{"count":10000,"capped":true}\n');
  });
});

describe('renderCounts', () => {
  it('leaves bars out when the terminal is too narrow for them, and draws none for zero', async () => {
    const rows = [{ value: 'DEU', count: 0, capped: false }, { value: 'FRA', count: 3, capped: false }];
    expect(await renderCounts('country', rows, 'table', { width: 18, bars: true, color: false, grouped: true, terminal: true })).toBe('country  count\nDEU          0\nFRA          3\ntotal        3\n');
    expect(await renderCounts('country', rows, 'text', { width: 30, bars: true, color: false, grouped: true, terminal: true })).toContain(`FRA          3  ${'█'.repeat(14)}`);
  });

  it('the service\'s text cannot drive a terminal: the table cleans its values wherever it goes, the other formats on a terminal', async () => {
    const title = '\x1b[31mURGENT\x1b[0m repair \x1b]0;pwned\x07 of the \u202ebridge\x9b2J';
    const rows = [{ value: title, json: { value: title }, count: 2, capped: false }];
    const opts = { width: 80, bars: false, color: false, grouped: false, terminal: true };
    const shown = String(await renderCounts('title', rows, 'text', opts));
    expect(shown.split('\n')[1]).toMatch(/^URGENT repair +of the +bridge +2$/);
    for (const format of ['text', 'table', 'csv', 'tsv', 'ndjson', 'json'] as const) {
      for (const terminal of format === 'text' || format === 'table' ? [true, false] : [true]) {
        const text = String(await renderCounts('title', rows, format, { ...opts, terminal }));
        expect(text, `${format} ${terminal}`).not.toMatch(/[\x1b\x07\x9b\u202e]/);
      }
    }
    // Into a pipe or a file, the record formats keep the service's exact text.
    expect(JSON.parse(String(await renderCounts('title', rows, 'json', { ...opts, terminal: false }))).partitions[0].title).toBe(title);
    expect(JSON.parse(String(await renderCounts('title', rows, 'json', opts))).partitions[0].title).toBe(title);
  });
});

/** A service of tenders per country and status, counting as the service does: up to 10 000, then capped. */
function service(counts: Record<string, Record<string, number>>): Responder {
  return ({ body }) => {
    const countries = (body.buyerCountries as string[] | undefined) ?? Object.keys(counts);
    let count = 0;
    for (const country of countries) {
      for (const [status, n] of Object.entries(counts[country] ?? {})) {
        if (!body.statuses || (body.statuses as string[]).includes(status)) count += n;
      }
    }
    return { json: { tenders: [], page: { nextCursor: null, total: { count: Math.min(count, 10000), capped: count > 10000 } } } };
  };
}

describe('count --by country without --country', () => {
  const world = service({ DEU: { open: 6000, closed: 7000, awarded: 300 }, FRA: { open: 12, cancelled: 3 }, ITA: { open: 11000, closed: 200 } });

  it('counts every ISO 3166-1 country, prints those with matches, and splits a capped one by status until exact', async () => {
    const r = await run(['count', '--by', 'country', '-f', 'csv'], {}, world);
    expect(r.code).toBe(0);
    // ITA's open tenders alone pass 10 000: its sum of parts is a better lower bound, said so.
    expect(r.stdout).toBe('country,count,capped\nDEU,13300,false\nFRA,15,false\nITA,10200,true\n');
    expect(r.stderr).toBe(
      'tenders: warning: ITA: its count is a lower bound (N+): the service stops counting at 10,000 and splitting by status did not bring every part under it\n',
    );
    const firsts = r.client.requests.filter((q) => !q.body.statuses);
    expect(firsts).toHaveLength(249);
    expect(firsts.every((q) => (q.body.buyerCountries as string[]).length === 1 && q.body.limit === 1)).toBe(true);
    expect(r.client.requests.filter((q) => q.body.statuses).map((q) => `${(q.body.buyerCountries as string[])[0]} ${(q.body.statuses as string[])[0]}`).sort()).toEqual(
      ['DEU awarded', 'DEU cancelled', 'DEU closed', 'DEU open', 'ITA awarded', 'ITA cancelled', 'ITA closed', 'ITA open'],
    );
  });

  it('on a terminal: the table with separators, and the lower bounds said', async () => {
    const r = await run(['count', '--by', 'country'], { stdoutTTY: true, columns: 20, env: { NO_COLOR: '1' } }, world);
    expect(r.stdout).toBe('country    count\nDEU       13,300\nFRA           15\nITA      10,200+\ntotal    23,515+\n');
    expect(r.stderr).toContain('ITA: its count is a lower bound');
  });

  it('-s with several statuses splits a capped country by those; a part still capped after every split stays a lower bound', async () => {
    const r = await run(['count', '-s', 'open,closed', '--by', 'country', '-f', 'ndjson'], {}, world);
    expect(r.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line))).toEqual([
      { country: 'DEU', count: 13000, capped: false },
      { country: 'FRA', count: 12, capped: false },
      { country: 'ITA', count: 10200, capped: true },
    ]);
  });

  it('--by status splits a capped status by every country', async () => {
    const r = await run(['count', '-s', 'open,closed', '--by', 'status', '-f', 'csv'], {}, world);
    expect(r.stdout).toBe('status,count,capped\nopen,16012,true\nclosed,7200,false\n'); // open: ITA alone is capped
    const split = await run(['count', '-c', 'DEU,FRA', '-s', 'open,closed', '--by', 'status', '-f', 'csv'], {}, world);
    expect(split.stdout).toBe('status,count,capped\nopen,6012,false\nclosed,7000,false\n');
  });

  it('parts that sum to less than the capped whole (a status outside the known list) leave the lower bound', async () => {
    const odd = service({ DEU: { open: 3000, suspended: 9000 } });
    const r = await run(['count', '--by', 'country', '-f', 'csv'], {}, odd);
    expect(r.stdout).toBe('country,count,capped\nDEU,10000,true\n');
  });

  it('a failed request cancels its siblings and sends nothing more', async () => {
    let inFlight = 0;
    const aborted: string[] = [];
    const respond: Responder = ({ body }, _n, signal) => {
      const country = (body.buyerCountries as string[])[0]!;
      if (country === 'AGO') return { status: 500, json: { error: 'down' } };
      inFlight++;
      return new Promise((_resolve, reject) => {
        signal?.addEventListener('abort', () => {
          aborted.push(country);
          reject(signal.reason);
        });
      });
    };
    const r = await run(['count', '--by', 'country', '--parallel', '3'], {}, respond);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: .*500/);
    expect(aborted.sort()).toEqual(['ABW', 'AFG']);
    expect(r.client.requests).toHaveLength(3); // ABW, AFG, AGO: none after the failure
    expect(inFlight).toBe(2);
  });
});
