import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import type { FormatOptions } from '../../src/output/formatter.js';
import { ParquetFormatter } from '../../src/output/formats/parquet-formatter.js';
import { HOSTILE_TITLE, hostileTenders } from '../support/hostile-tenders.js';
import { pagedTenders } from '../support/fake-client.js';
import { runInProcess } from '../support/run.js';
import { testDir } from '../support/test-context.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const base: FormatOptions = { header: true, headerStyle: 'path', excelSafe: false, color: false };

/** The file's bytes as the formatter hands them out, chunk by chunk (the sizes of the non-empty chunks too). */
function write(pages: Record<string, unknown>[][], opts: FormatOptions = base, rowGroupRows?: number): { file: ArrayBuffer; chunks: number[]; formatter: ParquetFormatter } {
  const formatter = new ParquetFormatter(opts, rowGroupRows);
  const parts: Uint8Array[] = [];
  const take = (chunk: string | Uint8Array) => {
    if (typeof chunk === 'string') expect(chunk).toBe('');
    else if (chunk.length > 0) parts.push(chunk);
  };
  for (const page of pages) take(formatter.page(page));
  take(formatter.end());
  const file = Buffer.concat(parts);
  return { file: file.buffer.slice(file.byteOffset, file.byteOffset + file.length), chunks: parts.map((p) => p.length), formatter };
}

const types = (file: ArrayBuffer) =>
  Object.fromEntries(parquetMetadata(file).schema.slice(1).map((s) => [s.name, s.logical_type?.type ?? s.type]));

describe('parquet', () => {
  it('writes typed columns (timestamps in UTC, doubles, UTF-8, nulls) and the tender as JSON in doc, read back by hyparquet', async () => {
    const { file, formatter } = write([hostileTenders()]);
    expect(types(file)).toMatchObject({
      id: 'STRING',
      title: 'STRING',
      publicationDate: 'TIMESTAMP',
      deadline: 'TIMESTAMP',
      'buyer.name': 'STRING',
      'estimatedValue.amountEur': 'DOUBLE',
      doc: 'STRING',
    });
    expect(parquetMetadata(file).schema.find((s) => s.name === 'deadline')!.logical_type).toEqual({ type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' });
    const rows = await parquetReadObjects({ file });
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatchObject({ id: 'T-1', title: HOSTILE_TITLE, deadline: new Date('2027-01-14T12:00:00Z'), 'estimatedValue.amountEur': 1234.5 });
    expect(rows[1]).toMatchObject({ deadline: null, 'estimatedValue.amountEur': null, 'estimatedValue.currency': null });
    expect(rows[2]).toMatchObject({ deadline: new Date('2027-02-01T07:30:00Z'), 'estimatedValue.amountEur': 12345678901234567890.5 });
    expect(rows[2]!.doc).toContain('"amountEur":12345678901234567890.5');
    expect(JSON.parse(rows[0]!.doc as string)).toEqual(hostileTenders()[0]);
    expect(formatter.warnings()).toEqual([]);
  });

  it('writes a row group whenever enough rows are held, each handed on as bytes when written', async () => {
    const many = Array.from({ length: 25 }, (_, i) => ({ id: `T-${i}`, value: i, when: '2026-01-01' }));
    const { file, chunks } = write([many.slice(0, 10), many.slice(10, 20), many.slice(20)], base, 8);
    expect(chunks).toHaveLength(3); // two pages reached 8 rows; the end writes the rest and the footer
    expect(parquetMetadata(file).row_groups.map((g) => Number(g.num_rows))).toEqual([10, 10, 5]);
    expect((await parquetReadObjects({ file })).map((r) => r.value)).toEqual(many.map((m) => m.value));
  });

  it('nulls a value that does not fit the type the first page set, and says so', async () => {
    const { file, formatter } = write([[{ id: 'a', amount: 1 }], [{ id: 'b', amount: 'n/a' }]]);
    expect((await parquetReadObjects({ file })).map((r) => r.amount)).toEqual([1, null]);
    expect(formatter.warnings()).toEqual(["Parquet: values that did not fit their column's type are null there: amount (1); the doc column holds them"]);
  });

  it('says both in cron, without a terminal or --verbose: values nulled, fields after the first page', async () => {
    const dir = testDir();
    const tenders = pagedTenders(150, (i) => (i > 100 ? { amount: 'n/a', late: 'x' } : { amount: i }));
    const r = await runInProcess(['export', '-o', join(dir, 't.parquet')], tenders);
    expect(r.code).toBe(0);
    expect(r.stderr.split('\n')).toEqual([
      "tenders: warning: Parquet: values that did not fit their column's type are null there: amount (50); the doc column holds them",
      'tenders: warning: 1 field first seen after the first page is not a column of the Parquet file (its columns come from the first page; its doc column holds them): late; ' +
        'to make them columns (--columns writes no doc column), add them to the columns: --columns id,title,amount,late',
      '',
    ]);
    const rows = await parquetReadObjects({ file: readFileSync(join(dir, 't.parquet')).buffer as ArrayBuffer });
    expect(Object.keys(rows[0]!)).toEqual(['id', 'title', 'amount', 'doc']);
    expect(JSON.parse(rows[149]!.doc as string)).toMatchObject({ amount: 'n/a', late: 'x' });
  });

  it('takes --columns as they are, without doc, and writes a readable empty file', async () => {
    const { file } = write([hostileTenders()], { ...base, columns: ['id', 'buyer.country'] });
    expect(Object.keys(types(file))).toEqual(['id', 'buyer.country']);
    expect(await parquetReadObjects({ file })).toEqual([
      { id: 'T-1', 'buyer.country': 'DEU' },
      { id: 'T-2', 'buyer.country': 'POL' },
      { id: 'T-3', 'buyer.country': 'FRA' },
    ]);
    const empty = write([]).file;
    expect(Number(parquetMetadata(empty).num_rows)).toBe(0);
    expect(await parquetReadObjects({ file: empty })).toEqual([]);
  });
});
