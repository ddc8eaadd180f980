import { describe, expect, it } from 'vitest';
import { CsvFormatter } from '../../src/output/formats/csv-formatter.js';
import type { FormatOptions } from '../../src/output/formatter.js';
import { JsonFormatter } from '../../src/output/formats/json-formatter.js';
import { NdjsonFormatter } from '../../src/output/formats/ndjson-formatter.js';
import { TableFormatter } from '../../src/output/terminal/table-formatter.js';
import stringWidth from 'string-width';
import { readCsvWithPython } from '../support/python-csv.js';

const base: FormatOptions = { header: true, headerStyle: 'path', excelSafe: false, width: 80, color: false, terminal: false };
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
  const columns = [
    { path: 'id', header: 'id', priority: 3 },
    { path: 'title', header: 'title', priority: 2, cut: 8 },
    { path: 'value.amount', header: 'amount', priority: 1, amount: true },
  ];

  it('fits the width, cuts text with an ellipsis and shows no control characters', () => {
    const table = new TableFormatter({ ...base, width: 30, defaultColumns: columns });
    const text = table.page(page1) + table.page(page2);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+title\s+amount$/);
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(30);
    expect(text).toContain('…');
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(table.hints()).toEqual([]);
  });

  it('continues a resumed export under the same header, widths and alignment', () => {
    const opts = { ...base, width: 30, defaultColumns: columns };
    const first = new TableFormatter(opts);
    const head = first.page(page1);
    const whole = new TableFormatter(opts);
    expect(head + new TableFormatter(opts, first.state()).page(page2)).toBe(whole.page(page1) + whole.page(page2));
  });

  it('drops whole columns, lowest priority first, and says so once', () => {
    const table = new TableFormatter({ ...base, width: 14, defaultColumns: columns });
    const text = table.page(page1);
    expect(text.split('\n')[0]).toMatch(/^id\s+title$/);
    // Broken at spaces to fit the 14 columns.
    expect(table.hints().join(' ')).toBe('1 column hidden at 14 columns: value.amount; widen the terminal or use --columns');
    expect(table.hints().length).toBeGreaterThan(1);
    // Columns the user named are all shown, or refused with the width they need.
    const asked = new TableFormatter({ ...base, width: 4, columns: ['id', 'title'] });
    expect(() => asked.page(page1)).toThrow(/^--columns id,title need \d+ columns at their narrowest and the terminal has 4: name fewer columns/);
  });

  it('right-aligns numbers; groups thousands and rounds amounts only on a terminal', () => {
    const items = [
      { id: 'a', n: 1234567.25, value: { amount: 9876543.5 } },
      { id: 'b', n: 5, value: { amount: 12 } },
    ];
    const opts = { ...base, columns: ['id', 'n'], defaultColumns: columns };
    expect(new TableFormatter({ ...opts, terminal: true }).page(items)).toBe(`id${' '.repeat(13)}n\na   1,234,567.25\nb              5\n`);
    expect(new TableFormatter(opts).page(items)).toBe(`id${' '.repeat(11)}n\na   1234567.25\nb            5\n`);
    const money = new TableFormatter({ ...base, terminal: true, columns: ['value.amount'], defaultColumns: columns });
    expect(money.page(items)).toBe('value.amount\n   9,876,544\n          12\n');
  });

  it('heads --columns with dot paths, snake_case on demand, and defaults with short headers', () => {
    const items = [{ id: 'a', title: 't', value: { amount: 1 } }];
    expect(new TableFormatter({ ...base, defaultColumns: columns }).page(items).split('\n')[0]).toBe('id  title  amount');
    expect(new TableFormatter({ ...base, columns: ['value.amount'] }).page(items).split('\n')[0]).toBe('value.amount');
    expect(new TableFormatter({ ...base, columns: ['value.amount'], headerStyle: 'snake' }).page(items).split('\n')[0]).toBe('value_amount');
  });

  it('measures emoji and wide characters as the terminal shows them', () => {
    const items = [{ id: '👍🏽', title: '東京' }, { id: 'ab', title: 'xyzw' }];
    expect(new TableFormatter({ ...base, columns: ['id', 'title'] }).page(items)).toBe('id  title\n👍🏽  東京\nab  xyzw\n');
    const cut = new TableFormatter({ ...base, width: 11, columns: ['title'] }).page([{ title: '東京都庁舎の改修工事' }, { title: 'a longer title' }]);
    expect(cut).toBe('title\n東京都庁舎…\na longer t…\n');
  });
});
