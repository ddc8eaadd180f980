import { describe, expect, it } from 'vitest';
import { CsvFormatter } from '../../src/output/csv.js';
import type { FormatOptions } from '../../src/output/formatter.js';
import { JsonFormatter } from '../../src/output/json.js';
import { NdjsonFormatter } from '../../src/output/ndjson.js';
import { fitWidths, TableFormatter } from '../../src/output/table.js';
import { readCsvWithPython } from '../support/python-csv.js';

const base: FormatOptions = { header: true, excelSafe: false, width: 80, color: false };
const page1 = [
  { id: 'a', title: 'Comma, "quoted"\r\nline', value: null },
  { id: 'b', title: '=HYPERLINK("x")', value: { amount: 5, currency: 'EUR' } },
];
const page2 = [{ id: 'c', title: 'Δήμος 東京 🚧', value: { amount: 7, currency: 'PLN' }, extra: 1 }];

describe('CSV', () => {
  it('takes columns from the first page, keeps them, and round-trips through a standard reader', () => {
    const csv = new CsvFormatter(base);
    const text = csv.page(page1) + csv.page(page2) + csv.end();
    expect(readCsvWithPython(text)).toEqual([
      ['id', 'title', 'value.amount', 'value.currency'],
      ['a', 'Comma, "quoted"\r\nline', '', ''],
      ['b', '=HYPERLINK("x")', '5', 'EUR'],
      ['c', 'Δήμος 東京 🚧', '7', 'PLN'],
    ]);
  });

  it('honours --columns, --no-header and --excel-safe', () => {
    const csv = new CsvFormatter({ ...base, columns: ['title', 'id'], header: false, excelSafe: true });
    const rows = readCsvWithPython(csv.page(page1));
    expect(rows).toEqual([
      ['Comma, "quoted"\r\nline', 'a'],
      ["'=HYPERLINK(\"x\")", 'b'],
    ]);
  });

  it('continues a resumed export with the saved columns and no second header', () => {
    const first = new CsvFormatter(base);
    const head = first.page(page1);
    const resumed = new CsvFormatter(base, first.state());
    const tail = resumed.page(page2);
    const whole = new CsvFormatter(base);
    expect(head + tail).toBe(whole.page(page1) + whole.page(page2));
  });

  it('writes just the header for an empty export with known columns', () => {
    expect(new CsvFormatter({ ...base, columns: ['id', 'title'] }).end()).toBe('id,title\n');
    expect(new CsvFormatter(base).end()).toBe('');
  });
});

describe('NDJSON and JSON', () => {
  it('writes one object a line, projected by --columns', () => {
    const nd = new NdjsonFormatter(base);
    expect(nd.page(page1).split('\n').slice(0, -1).map((l) => JSON.parse(l))).toEqual(page1);
    const projected = new NdjsonFormatter({ ...base, columns: ['value.amount', 'id'] });
    expect(projected.page(page1)).toBe('{"id":"a"}\n{"value":{"amount":5},"id":"b"}\n');
  });

  it('streams one valid JSON array, also when empty or resumed', () => {
    const json = new JsonFormatter(base);
    const head = json.page(page1);
    const resumed = new JsonFormatter(base, json.state());
    const text = head + resumed.page([]) + resumed.page(page2) + resumed.end();
    expect(JSON.parse(text)).toEqual([...page1, ...page2]);
    expect(JSON.parse(new JsonFormatter(base).end())).toEqual([]);
  });
});

describe('table', () => {
  it('fits the width, truncates with an ellipsis and shows no control characters', () => {
    const table = new TableFormatter({ ...base, width: 30, defaultColumns: ['id', 'title', 'value.amount'] });
    const text = table.page(page1) + table.page(page2);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+title\s+value\.a…$/);
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(30);
    expect(text).toContain('…');
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });

  it('continues a resumed export under the same header and widths', () => {
    const opts = { ...base, width: 30, defaultColumns: ['id', 'title'] };
    const first = new TableFormatter(opts);
    const head = first.page(page1);
    const whole = new TableFormatter(opts);
    expect(head + new TableFormatter(opts, first.state()).page(page2)).toBe(whole.page(page1) + whole.page(page2));
  });

  it('shrinks the widest columns first, long headers before data', () => {
    expect(fitWidths(['a', 'b'], [['x'.repeat(50), 'y'.repeat(10)]], 42)).toEqual([30, 10]);
    expect(fitWidths(['a-long-header-name', 'b'], [['short', 'y'.repeat(30)]], 40)).toEqual([8, 30]);
    expect(fitWidths(['a', 'b'], [['x'.repeat(50), 'y'.repeat(50)]], 12)).toEqual([5, 5]);
  });
});
