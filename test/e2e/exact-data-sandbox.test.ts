import { beforeEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../support/sandbox.js';
import { runCli } from '../support/cli.js';
import { readCsvWithPython } from '../support/python-csv.js';

// What the sandbox's --exotic-fields appends to every tenth tender, written out here on purpose.
const EXOTIC =
  ',"bigRef":12345678901234567890,"exactAmount":9007199254740993,"precise":0.10000000000000000555,' +
  '"toString":"plain data","constructor":{"name":"plain data"},"hasOwnProperty":false,"__proto__":{"polluted":true}}';

const sb = useSandbox({ size: 400, seed: 11 });

describe('against the sandbox with --exotic-fields', () => {
  beforeEach(() => sb.setFaults({ exoticFields: true }));

  it('NDJSON and JSON keep every digit and every prototype-named key of the service', async () => {
    const r = await runCli(['export', '-f', 'ndjson'], sb.url);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(400);
    expect(lines.filter((line) => line.endsWith(EXOTIC))).toHaveLength(40);
    expect(r.stdout).not.toContain('12345678901234567000');
    const json = await runCli(['export', '-f', 'json'], sb.url);
    expect(json.stdout.split('\n').filter((line) => line.endsWith(`${EXOTIC},`) || line.endsWith(EXOTIC))).toHaveLength(40);
  });

  it('CSV has the digits, and tenders without the prototype-named fields have empty cells', async () => {
    const r = await runCli(['export', '--columns', 'id,bigRef,exactAmount,precise,toString,constructor.name,hasOwnProperty,__proto__.polluted'], sb.url);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const [, ...rows] = readCsvWithPython(r.stdout);
    const exotic = rows.filter((row) => Number(row[0]!.split('-')[1]) % 10 === 0);
    expect(exotic).toHaveLength(40);
    for (const row of exotic) expect(row.slice(1)).toEqual(['12345678901234567890', '9007199254740993', '0.10000000000000000555', 'plain data', 'plain data', 'false', 'true']);
    for (const row of rows.filter((r) => !exotic.includes(r))) expect(row.slice(1)).toEqual(['', '', '', '', '', '', '']);
  });

  it('the first page’s own columns include them, empty where a tender lacks them', async () => {
    const r = await runCli(['export'], sb.url);
    expect(r.code).toBe(0);
    const [header, ...rows] = readCsvWithPython(r.stdout);
    for (const column of ['bigRef', 'toString', 'constructor.name', 'hasOwnProperty', '__proto__.polluted']) expect(header).toContain(column);
    expect(r.stdout).not.toContain('[native code]');
    const toString = header!.indexOf('toString');
    expect(new Set(rows.map((row) => row[toString]))).toEqual(new Set(['', 'plain data']));
  });

  it('the table shows the digits', async () => {
    const r = await runCli(['search', '--all', '-f', 'table', '--columns', 'id,bigRef,exactAmount'], sb.url);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ 12345678901234567890 +9007199254740993\n/);
  });
});

describe('against the sandbox with --drift-after', () => {
  it('a CSV export warns once about the fields later pages brought, and counts them with --verbose', async () => {
    sb.setFaults({ driftAfter: 1 });
    const r = await runCli(['export', '--columns', 'id,title'], sb.url);
    expect(r.stderr).toBe('');
    sb.setFaults({ driftAfter: 1 });
    const drifted = await runCli(['export', '-v'], sb.url);
    expect(drifted.code).toBe(0);
    const warnings = drifted.stderr.split('\n').filter((line) => line.startsWith('tenders: warning:'));
    expect(warnings).toEqual([expect.stringMatching(/^tenders: warning: 2 fields first seen after the first page are not in the CSV \(its columns come from the first page\): amendment\.number, amendment\.reason; to include them, add them to the columns: --columns id,.*,amendment\.number,amendment\.reason$/)]);
    expect(drifted.stderr).toMatch(/\* 400 tenders in 4 pages, 0 duplicates dropped, 2 new fields left out of the CSV/);
    const [header] = readCsvWithPython(drifted.stdout);
    expect(header).not.toContain('amendment.number');
  });

  it('the --columns the warning gives includes them, silently', async () => {
    sb.setFaults({ driftAfter: 1 });
    const r = await runCli(['export', '--columns', 'id,amendment.number,amendment.reason'], sb.url);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const [header, first, ...rest] = readCsvWithPython(r.stdout);
    expect(header).toEqual(['id', 'amendment.number', 'amendment.reason']);
    expect(first!.slice(1)).toEqual(['', '']);
    expect(rest.at(-1)!.slice(1)).toEqual(['1', 'Corrigendum: clarification of the tender documents']);
  });
});
