import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import { CsvFormatter } from '../../src/output/formats/csv-formatter.js';
import type { FormatOptions } from '../../src/output/formatter.js';
import { NewFields, newFieldsWarning } from '../../src/output/formats/new-fields.js';
import { ParquetFormatter } from '../../src/output/formats/parquet-formatter.js';
import { TsvFormatter } from '../../src/output/formats/tsv-formatter.js';
import { readCsvWithPython } from '../support/python-csv.js';

describe('NewFields', () => {
  it('notes the fields no column covers, nested ones by their dot path, in order of discovery', () => {
    const watch = new NewFields(['id', 'buyer.name', 'value']);
    watch.scan([
      { id: 1, buyer: { name: 'a', phone: '1' }, value: { amount: 5 }, lots: [1] },
      { id: 2, buyer: 'just text', lots: [2], notes: 'x' },
    ]);
    // `value` holds the whole object as JSON: nothing beneath it is lost.
    expect(watch.fields).toEqual(['buyer.phone', 'lots', 'buyer', 'notes']);
  });

  it('ignores values that carry nothing: null, empty strings, objects and arrays', () => {
    const watch = new NewFields(['id']);
    watch.scan([{ id: 1, a: null, b: '', c: {}, d: [], e: { f: null } }]);
    expect(watch.fields).toEqual([]);
  });

  it('counts big numbers and prototype-named keys like any field', () => {
    const watch = new NewFields(['id']);
    watch.scan(parseJson('[{"id":1,"amount":12345678901234567890,"__proto__":{"admin":true},"toString":"t"}]') as Record<string, unknown>[]);
    expect(watch.fields).toEqual(['amount', '__proto__.admin', 'toString']);
  });

  it('a shorter column covers a longer one given with it, in either order', () => {
    for (const columns of [['buyer', 'buyer.name'], ['buyer.name', 'buyer']]) {
      const watch = new NewFields(columns);
      watch.scan([{ buyer: { name: 'a', phone: '1' } }]);
      expect(watch.fields, columns.join()).toEqual([]);
    }
  });

  it('judges values, not only shapes: a shape first seen empty still brings its field when it carries data', () => {
    const watch = new NewFields(['id', 'buyer.name']);
    watch.scan([{ id: 1, note: null, buyer: { name: 'a', phone: '' } }]);
    watch.scan([{ id: 2, note: 'x', buyer: { name: 'b', phone: '1' } }]);
    expect(watch.fields).toEqual(['note', 'buyer.phone']);
  });

  it('finds fields in rows of ever new shapes, past the shapes it remembers', () => {
    const watch = new NewFields(['id']);
    watch.scan(Array.from({ length: 100 }, (_, i) => ({ id: i, [`k${i}`]: i })));
    expect(watch.fields).toEqual(Array.from({ length: 100 }, (_, i) => `k${i}`));
  });

  it('remembers a bounded number of names, and what a resumed export had found', () => {
    const watch = new NewFields(['id'], ['old']);
    watch.scan([Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`k${i}`, i]))]);
    expect(watch.fields).toHaveLength(1000);
    expect(watch.fields[0]).toBe('old');
  });
});

describe('newFieldsWarning', () => {
  it('names the fields and the --columns that includes them', () => {
    expect(newFieldsWarning(['lots'], ['id', 'title'], 'CSV')).toBe(
      '1 field first seen after the first page is not in the CSV (its columns come from the first page): lots; to include them, add them to the columns: --columns id,title,lots',
    );
  });

  it('names ten of many and says how to choose', () => {
    const fields = Array.from({ length: 12 }, (_, i) => `f${i}`);
    expect(newFieldsWarning(fields, ['id'], 'CSV')).toBe(
      '12 fields first seen after the first page are not in the CSV (its columns come from the first page): f0, f1, f2, f3, f4, f5, f6, f7, f8, f9 and 2 more; to include them, name the columns you want with --columns',
    );
  });
});

describe('CSV left-out fields', () => {
  const base: FormatOptions = { header: true, headerStyle: 'path', excelSafe: false, width: 80, color: false };

  it('keeps its first-page columns and reports what later pages add', () => {
    const csv = new CsvFormatter(base);
    const text = csv.page([{ id: 'a' }]) + csv.page([{ id: 'b', extra: 1 }]);
    expect(readCsvWithPython(text)).toEqual([['id'], ['a'], ['b']]);
    expect(csv.droppedFields()).toEqual(['extra']);
    expect(csv.state()).toEqual({ rows: 2, columns: ['id'], droppedFields: ['extra'] });
  });

  it('carries them across a resume', () => {
    const csv = new CsvFormatter(base, { rows: 2, columns: ['id'], droppedFields: ['extra'] });
    csv.page([{ id: 'c', more: true }]);
    expect(csv.droppedFields()).toEqual(['extra', 'more']);
  });

  it('reports nothing with --columns: the user chose', () => {
    const csv = new CsvFormatter({ ...base, columns: ['id'] });
    csv.page([{ id: 'a', extra: 1 }]);
    csv.page([{ id: 'b', more: 1 }]);
    expect(csv.droppedFields()).toEqual([]);
    expect(csv.state()).toEqual({ rows: 2, columns: ['id'] });
    expect(csv.warnings()).toEqual([]);
  });
});

describe('the warning of each flat format, naming it', () => {
  const base: FormatOptions = { header: true, headerStyle: 'path', excelSafe: false, color: false };
  const late = (formatter: { page(items: Record<string, unknown>[]): unknown; warnings(): string[] }) => {
    formatter.page([{ id: 'a' }]);
    formatter.page([{ id: 'b', extra: 1 }]);
    return formatter.warnings();
  };

  it('csv and tsv: the fields are not in the CSV, or the TSV', () => {
    expect(late(new CsvFormatter(base))).toEqual([
      '1 field first seen after the first page is not in the CSV (its columns come from the first page): extra; to include them, add them to the columns: --columns id,extra',
    ]);
    expect(late(new TsvFormatter(base))).toEqual([
      '1 field first seen after the first page is not in the TSV (its columns come from the first page): extra; to include them, add them to the columns: --columns id,extra',
    ]);
  });

  it('parquet: not columns, but in doc; with --columns, nothing to say', () => {
    expect(late(new ParquetFormatter(base))).toEqual([
      '1 field first seen after the first page is not a column of the Parquet file (its columns come from the first page; its doc column holds them): extra; ' +
        'to make them columns (--columns writes no doc column), add them to the columns: --columns id,extra',
    ]);
    expect(late(new ParquetFormatter({ ...base, columns: ['id'] }))).toEqual([]);
  });
});
