import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { readCsvWithPython } from '../support/python-csv.js';
import { startRawService, type RawService } from '../support/raw-service.js';

// Each page's results exactly as the service writes them.
const ITEMS = [
  '{"id":12345678901234567890,"amount":9007199254740993,"rate":0.10000000000000001,"title":"a","toString":"own"}',
  '{"id":12345678901234567891,"amount":1.5,"rate":2,"title":"b"}',
  '{"id":98765432109876543210,"amount":-123456789012345678.5,"rate":1e400,"title":"c","__proto__":{"admin":true}}',
];
const PAGES = [`[${ITEMS[0]},${ITEMS[1]}]`, `[${ITEMS[2]}]`];

let service: RawService;
beforeAll(async () => {
  service = await startRawService(PAGES);
});
afterAll(() => service.close());

describe('numbers a double cannot hold reach every format with their digits', () => {
  it('NDJSON is the service’s objects byte for byte', async () => {
    const r = await runCli(['export', '-f', 'ndjson'], service.url);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(ITEMS.map((item) => `${item}\n`).join(''));
  });

  it('JSON is one array of them', async () => {
    const r = await runCli(['export', '-f', 'json'], service.url);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`[\n${ITEMS.join(',\n')}\n]\n`);
  });

  it('CSV cells and table cells are the digits', async () => {
    const csv = await runCli(['export', '--columns', 'id,amount,rate'], service.url);
    expect(csv.code).toBe(0);
    expect(readCsvWithPython(csv.stdout)).toEqual([
      ['id', 'amount', 'rate'],
      ['12345678901234567890', '9007199254740993', '0.10000000000000001'],
      ['12345678901234567891', '1.5', '2'],
      ['98765432109876543210', '-123456789012345678.5', '1e400'],
    ]);
    const table = await runCli(['search', '--all', '-f', 'table', '--columns', 'id,amount'], service.url);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('12345678901234567890  9007199254740993');
    expect(table.stdout).toMatch(/^98765432109876543210  /m);
  });
});

describe('keys named like Object.prototype members are plain data', () => {
  it('an absent toString or constructor is an empty cell; __proto__ is a column like any other', async () => {
    const r = await runCli(['export', '--columns', 'id,toString,constructor,hasOwnProperty,__proto__.admin'], service.url);
    expect(r.code).toBe(0);
    expect(readCsvWithPython(r.stdout)).toEqual([
      ['id', 'toString', 'constructor', 'hasOwnProperty', '__proto__.admin'],
      ['12345678901234567890', 'own', '', '', ''],
      ['12345678901234567891', '', '', '', ''],
      ['98765432109876543210', '', '', '', 'true'],
    ]);
  });

  it('NDJSON --columns keeps a __proto__ key as data', async () => {
    const r = await runCli(['export', '-f', 'ndjson', '--columns', 'title,__proto__,toString'], service.url);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"title":"a","toString":"own"}\n{"title":"b"}\n{"title":"c","__proto__":{"admin":true}}\n');
  });
});

describe('a field that first appears on a later page', () => {
  let drifting: RawService;
  beforeAll(async () => {
    drifting = await startRawService(['[{"id":1,"title":"a"}]', '[{"id":2,"title":"b","lots":3}]', '[{"id":3,"title":"c","lots":4,"notes":"n"}]']);
  });
  afterAll(() => drifting.close());

  it('is not silently lost from a CSV: one warning naming every such field and the --columns that includes them', async () => {
    const r = await runCli(['export'], drifting.url);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('id,title\n1,a\n2,b\n3,c\n');
    expect(r.stderr).toBe(
      'tenders: warning: 2 fields first seen after the first page are not in the CSV (its columns come from the first page): lots, notes; to include them, add them to the columns: --columns id,title,lots,notes\n',
    );
    const fixed = await runCli(['export', '--columns', 'id,title,lots,notes'], drifting.url);
    expect(fixed.stderr).toBe('');
    expect(fixed.stdout).toBe('id,title,lots,notes\n1,a,,\n2,b,3,\n3,c,4,n\n');
  });

  it('a --columns typo is said once the run ends, with what it may have meant', async () => {
    const r = await runCli(['export', '--columns', 'id,titel,nope'], drifting.url);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('id,titel,nope\n1,,\n2,,\n3,,\n');
    expect(r.stderr).toBe(
      "tenders: warning: --columns titel matches no field of any result; did you mean title? ('tenders fields' lists them)\n" +
        "tenders: warning: --columns nope matches no field of any result ('tenders fields' lists them)\n",
    );
  });
});
