import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { useSandbox } from '../support/sandbox.js';
import { testDir } from '../support/test-context.js';
import { ndjson, runCli, runShell } from '../support/cli.js';
import { readCsvWithPython } from '../support/python-csv.js';

const PATH = '/api/v1/tenders/search';
const sb = useSandbox({ size: 2500, seed: 3 });

type Tender = Record<string, unknown>;

// Written out by hand from the sandbox's tender shape (docs/sandbox.md), not
// derived by the code under test: the header a CSV export of its tenders must have.
const SANDBOX_COLUMNS = [
  'id', 'title', 'status', 'publicationDate', 'deadline', 'buyer.id', 'buyer.name', 'buyer.country',
  'estimatedValue.amount', 'estimatedValue.currency', 'estimatedValue.amountEur', 'procedure', 'cpv', 'cpvCodes', 'url',
];

/** A cell as the README promises: null and missing empty, numbers and booleans as JSON, strings as they are. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The rows a CSV of `items` must hold. */
function expectedCsv(items: Tender[]): string[][] {
  const at = (item: Tender, column: string) =>
    column.split('.').reduce<unknown>((value, key) => (value as Tender | null | undefined)?.[key], item);
  return [SANDBOX_COLUMNS, ...items.map((item) => SANDBOX_COLUMNS.map((column) => cell(at(item, column))))];
}

describe('tenders export', () => {
  it('streams every matching tender as CSV that a standard reader gets back exactly, silently', async () => {
    const before = sb.requests.length;
    const r = await runCli(['export', '--country', 'DEU,FRA,GRC,BGR,UKR'], sb.url);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const truth = sb.truth(PATH, { buyerCountries: ['DEU', 'FRA', 'GRC', 'BGR', 'UKR'] }) as Tender[];
    expect(readCsvWithPython(r.stdout)).toEqual(expectedCsv(truth));
    const bodies = sb.requests.slice(before).map((q) => q.body as Tender);
    expect(bodies.every((b) => b.limit === 100)).toBe(true);
  });

  it('keeps hostile titles intact through CSV and guards formulas with --excel-safe', async () => {
    const r = await runCli(['export', '--max', '100', '--columns', 'id,title', '--excel-safe'], sb.url);
    expect(r.code).toBe(0);
    const truth = sb.truth(PATH, {}).slice(0, 100) as Tender[];
    const rows = readCsvWithPython(r.stdout);
    expect(rows[0]).toEqual(['id', 'title']);
    const titles = truth.map((t) => String(t.title));
    expect(titles.some((t) => /[\r\n]/.test(t))).toBe(true);
    expect(titles.some((t) => /^[=+\-@]/.test(t))).toBe(true);
    expect(rows.slice(1).map((row) => row[1])).toEqual(titles.map((t) => (/^[=+\-@\t\r]/.test(t) ? `'${t}` : t)));
  });

  it('writes NDJSON and JSON identical to the service truth, projected by --columns', async () => {
    const truth = sb.truth(PATH, { statuses: ['open'], sortBy: 'estimatedValue' }) as Tender[];
    const nd = await runCli(['export', '-s', 'open', '--sort', 'estimatedValue', '-f', 'ndjson'], sb.url);
    expect(ndjson(nd.stdout)).toEqual(truth);
    const json = await runCli(['export', '-s', 'open', '--sort', 'estimatedValue', '-f', 'json', '--columns', 'id,buyer.name'], sb.url);
    expect(JSON.parse(json.stdout)).toEqual(truth.map((t) => ({ id: t.id, buyer: { name: (t.buyer as Tender).name } })));
  });

  it('writes an empty but valid result when nothing matches', async () => {
    const filters = ['--country', 'DEU', '--filter', 'minValue=1e15'];
    expect((await runCli(['export', ...filters, '-f', 'json'], sb.url)).stdout).toBe('[]\n');
    expect((await runCli(['export', ...filters, '--columns', 'id,title'], sb.url)).stdout).toBe('id,title\n');
    expect((await runCli(['export', ...filters, '--no-header', '--columns', 'id'], sb.url)).stdout).toBe('');
  });

  it('ends quietly and at once when the reader closes the pipe', async () => {
    const big = await startSandbox({ size: 20000, seed: 5 });
    try {
      const r = await runShell('$TENDERS export -f ndjson | head -n 3', big.url);
      expect(r.stdout.split('\n').slice(0, 3).map((l) => JSON.parse(l))).toEqual(big.truth(PATH, {}).slice(0, 3));
      expect(r.stderr).toBe('');
      // the pages that fit in the pipe's buffer and the one prefetched meanwhile; not the other 200
      expect(big.requests.length).toBeLessThanOrEqual(4);
      const csv = await runShell('$TENDERS export | head -c 100 > /dev/null', big.url);
      expect(csv.stderr).toBe('');
    } finally {
      await big.close();
    }
  });

  it('writes -o FILE atomically: the same bytes as stdout, nothing left beside it', async () => {
    const file = join(testDir(), 'deu.csv');
    const r = await runCli(['export', '-c', 'DEU', '-o', file], sb.url);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('');
    const piped = await runCli(['export', '-c', 'DEU'], sb.url);
    expect(await readFile(file, 'utf8')).toBe(piped.stdout);
    expect(await readdir(testDir())).toEqual(['deu.csv']);
  });

  it('leaves the previous FILE untouched when an export fails', async () => {
    const file = join(testDir(), 'previous.csv');
    await writeFile(file, 'previous export\n');
    sb.setFaults({ failAfter: 2, failStatus: 500 });
    const r = await runCli(['export', '-o', file, '--retries', '0'], sb.url);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toMatch(/^tenders: the service answered 500/);
    expect(await readFile(file, 'utf8')).toBe('previous export\n');
  });

  it('fails before any request when FILE cannot be written', async () => {
    const before = sb.requests.length;
    const r = await runCli(['export', '-o', join(testDir(), 'missing', 'x.csv')], sb.url);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tenders: cannot write -o .*x\.csv: the directory .*missing does not exist\n$/);
    expect(sb.requests.length).toBe(before);
  });
});

describe('tenders count', () => {
  it('prints the total, capped as 10000+, and as JSON', async () => {
    const open = sb.truth(PATH, { statuses: ['open'] }).length;
    expect((await runCli(['count', '-s', 'open'], sb.url)).stdout).toBe(`${open}\n`);
    expect(JSON.parse((await runCli(['count', '-s', 'open', '-f', 'json'], sb.url)).stdout)).toEqual({ count: open, capped: false });
    const big = await startSandbox({ size: 10_050, seed: 2 });
    try {
      expect((await runCli(['count'], big.url)).stdout).toBe('10000+\n');
      expect(JSON.parse((await runCli(['count', '--format', 'json'], big.url)).stdout)).toEqual({ count: 10000, capped: true });
    } finally {
      await big.close();
    }
  });
});
