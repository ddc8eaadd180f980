import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import { RawNumber } from '../../src/model/exact-json.js';
import { CsvFormatter } from '../../src/output/formats/csv-formatter.js';
import type { FormatOptions } from '../../src/output/formatter.js';
import { JsonFormatter } from '../../src/output/formats/json-formatter.js';
import { NdjsonFormatter } from '../../src/output/formats/ndjson-formatter.js';
import { cellText, compilePaths, discoverPaths, project, valueAt } from '../../src/model/paths.js';
import { TableFormatter } from '../../src/output/terminal/table-formatter.js';
import { BoundaryDeduper } from '../../src/run/dedupe.js';
import { readCsvWithPython } from '../support/python-csv.js';

const base: FormatOptions = { header: true, headerStyle: 'path', excelSafe: false, width: 200, color: false };
const items = (text: string) => parseJson(text) as Record<string, unknown>[];

const BIG = '[{"id":12345678901234567890,"amount":9007199254740993,"rate":0.10000000000000001,"n":7,"nested":{"v":123456789012345678901234567890}}]';

describe('numbers a double cannot hold, in every format', () => {
  it('NDJSON and JSON write the service’s literals verbatim, whole or projected', () => {
    const ndjson = new NdjsonFormatter(base);
    expect(ndjson.page(items(BIG))).toBe(`${BIG.slice(1, -1)}\n`);
    const projected = new NdjsonFormatter({ ...base, columns: ['nested.v', 'id', 'n'] });
    expect(projected.page(items(BIG))).toBe('{"nested":{"v":123456789012345678901234567890},"id":12345678901234567890,"n":7}\n');
    const json = new JsonFormatter(base);
    expect(json.page(items(BIG)) + json.end()).toBe(`[\n${BIG.slice(1, -1)}\n]\n`);
  });

  it('CSV cells hold the digits, nested values included', () => {
    const csv = new CsvFormatter(base);
    expect(readCsvWithPython(csv.page(items(BIG)))).toEqual([
      ['id', 'amount', 'rate', 'n', 'nested.v'],
      ['12345678901234567890', '9007199254740993', '0.10000000000000001', '7', '123456789012345678901234567890'],
    ]);
    const whole = new CsvFormatter({ ...base, columns: ['nested'] });
    expect(readCsvWithPython(whole.page(items(BIG)))[1]).toEqual(['{"v":123456789012345678901234567890}']);
  });

  it('the table shows the digits', () => {
    const table = new TableFormatter({ ...base, columns: ['id', 'amount'] });
    expect(table.page(items(BIG))).toMatch(/^id\s+amount\n12345678901234567890\s+9007199254740993\n$/);
  });

  it('a big-number id is one id across pages, and survives a resume', () => {
    const dedupe = new BoundaryDeduper();
    expect(dedupe.filter(items('[{"id":12345678901234567890},{"id":12345678901234567891}]'))).toHaveLength(2);
    const resumed = new BoundaryDeduper(JSON.parse(JSON.stringify(dedupe.recentIds())));
    expect(resumed.filter(items('[{"id":12345678901234567891},{"id":12345678901234567892}]'))).toEqual([{ id: new RawNumber('12345678901234567892') }]);
    expect(resumed.dropped).toBe(1);
  });

  it('cellText gives a RawNumber’s literal', () => {
    expect(cellText(new RawNumber('-1.5e400'))).toBe('-1.5e400');
  });
});

describe('keys named like Object.prototype members are plain data', () => {
  const NAMES = ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf'];

  it('absent means undefined, present means the value, at any depth', () => {
    for (const name of NAMES) {
      const [top, deep] = compilePaths([name, `buyer.${name}`]);
      expect(valueAt({}, top!), name).toBeUndefined();
      expect(valueAt({ buyer: {} }, deep!), name).toBeUndefined();
      const present = JSON.parse(`{"${name}":"x","buyer":{"${name}":"y"}}`) as Record<string, unknown>;
      expect(valueAt(present, top!)).toBe('x');
      expect(valueAt(present, deep!)).toBe('y');
    }
  });

  it('are discovered as columns, with what lies beneath them', () => {
    const parsed = items('[{"id":1,"toString":"a"},{"id":2,"__proto__":{"admin":true},"constructor":null}]');
    expect(discoverPaths(parsed)).toEqual(['id', 'toString', '__proto__.admin', 'constructor']);
  });

  it('project copies them as own keys and never sets a prototype or pollutes Object.prototype', () => {
    const [item] = items('[{"__proto__":{"admin":true},"id":1,"toString":"t"}]');
    const out = project(item!, compilePaths(['__proto__.admin', '__proto__', 'toString', 'constructor', 'id']));
    expect(Object.keys(out)).toEqual(['__proto__', 'toString', 'id']);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"admin":true},"toString":"t","id":1}');
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect((out as { admin?: unknown }).admin).toBeUndefined();
  });

  it('a CSV of such columns has empty cells where rows lack them, never inherited functions', () => {
    const csv = new CsvFormatter({ ...base, columns: ['id', ...NAMES] });
    const rows = readCsvWithPython(csv.page(items('[{"id":1},{"id":2,"toString":"t","constructor":"c","__proto__":"p","hasOwnProperty":"h","valueOf":0}]')));
    expect(rows).toEqual([
      ['id', ...NAMES],
      ['1', '', '', '', '', ''],
      ['2', 't', 'c', 'p', 'h', '0'],
    ]);
  });

  it('NDJSON with --columns writes only the fields a row has', () => {
    const ndjson = new NdjsonFormatter({ ...base, columns: ['id', ...NAMES] });
    expect(ndjson.page(items('[{"id":1},{"id":2,"__proto__":{"x":1}}]'))).toBe('{"id":1}\n{"id":2,"__proto__":{"x":1}}\n');
  });

  it('ids named like prototype members deduplicate like any other', () => {
    const dedupe = new BoundaryDeduper();
    expect(dedupe.filter([{ id: 'toString' }, { id: '__proto__' }])).toHaveLength(2);
    expect(dedupe.filter([{ id: '__proto__' }, { id: 'constructor' }])).toEqual([{ id: 'constructor' }]);
  });
});
