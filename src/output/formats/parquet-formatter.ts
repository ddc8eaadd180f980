import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { SchemaElement } from 'hyparquet';
import { RawNumber, stringifyJson, type JsonObject } from '../../model/exact-json.js';
import { VERSION } from '../../version.js';
import type { Chunk, FormatOptions, Formatter, FormatterState } from '../formatter.js';
import { formatCount } from '../../model/numbers.js';
import { NewFields, newFieldsWarning } from './new-fields.js';
import { cellText, compilePaths, discoverPaths, valueAt } from '../../model/paths.js';
import { parseInstant } from './tender-facts.js';

/** Rows held before they are written as one row group: what bounds memory, whatever the export's size. */
export const ROW_GROUP_ROWS = 10_000;

/** The column that holds each tender whole, as JSON, when --columns does not choose the columns. */
export const DOC_COLUMN = 'doc';

type ColumnType = 'STRING' | 'DOUBLE' | 'BOOLEAN' | 'TIMESTAMP';

interface Column {
  name: string;
  path: string[] | undefined;
  type: ColumnType;
  values: unknown[];
}

/**
 * Parquet through hyparquet-writer's incremental ParquetWriter: the first
 * page decides the columns (the CSV's dot paths, or --columns) and their
 * types (numbers DOUBLE, booleans BOOLEAN, dates and date-times TIMESTAMP in
 * milliseconds, adjusted to UTC; anything else UTF-8 text, nested values as
 * JSON); every ROW_GROUP_ROWS rows are written as a row group and handed on
 * as bytes, the footer at the end. A value that does not fit its column's
 * type is null there, and a field first seen after the first page has no
 * column (both said in warnings()); the `doc` column keeps every tender
 * exactly, numbers digit for digit.
 */
export class ParquetFormatter implements Formatter {
  #columns: Column[] | undefined;
  #writer: ParquetWriter | undefined;
  readonly #bytes = new ByteWriter();
  readonly #requested: string[] | undefined;
  #held = 0;
  #rows = 0;
  readonly #misfits = new Map<string, number>();
  /** Undefined with --columns: the user chose what to leave out. */
  #newFields: NewFields | undefined;

  constructor(
    opts: FormatOptions,
    private readonly rowGroupRows = ROW_GROUP_ROWS,
  ) {
    this.#requested = opts.columns;
  }

  page(items: readonly Record<string, unknown>[]): Chunk {
    if (items.length === 0) return '';
    if (this.#columns) this.#newFields?.scan(items);
    else this.#columns = this.#decide(items);
    for (const item of items) {
      for (const column of this.#columns) column.values.push(this.#value(column, item));
    }
    this.#held += items.length;
    this.#rows += items.length;
    return this.#held >= this.rowGroupRows ? this.#flush() : '';
  }

  /** The last row group and the footer. */
  end(): Chunk {
    this.#columns ??= this.#decide([]);
    const head = this.#held > 0 ? this.#flush() : '';
    void this.#open().finish(); // a ByteWriter's finish is synchronous: the promise its type allows is a file writer's
    const tail = this.#take();
    return head === '' ? tail : concat(head as Uint8Array, tail);
  }

  state(): FormatterState {
    return { rows: this.#rows, columns: this.#columns?.map((c) => c.name) };
  }

  /** What the columns lost: values nulled for their type, fields the first page did not have. */
  warnings(): string[] {
    const lines: string[] = [];
    const whole = this.#columns?.some((c) => !c.path) ? DOC_COLUMN : undefined;
    if (this.#misfits.size > 0) {
      const list = [...this.#misfits].map(([name, n]) => `${name} (${formatCount(n)})`).join(', ');
      lines.push(`Parquet: values that did not fit their column's type are null there: ${list}${whole ? `; the ${whole} column holds them` : ''}`);
    }
    const fields = this.#newFields?.fields ?? [];
    if (fields.length > 0) {
      const columns = this.#columns!.filter((c) => c.path).map((c) => c.name);
      lines.push(newFieldsWarning(fields, columns, 'Parquet file', whole));
    }
    return lines;
  }

  #decide(items: readonly JsonObject[]): Column[] {
    const names = this.#requested ?? discoverPaths(items);
    const columns: Column[] = names.map((name) => {
      const path = compilePaths([name])[0]!;
      return { name, path, type: inferType(items.map((item) => valueAt(item, path))), values: [] };
    });
    if (!this.#requested) {
      if (!names.includes(DOC_COLUMN)) columns.push({ name: DOC_COLUMN, path: undefined, type: 'STRING', values: [] });
      // Only a first page with rows sets columns that later pages can outgrow.
      if (items.length > 0) this.#newFields = new NewFields(names);
    }
    return columns;
  }

  #value(column: Column, item: JsonObject): unknown {
    if (!column.path) return stringifyJson(item);
    const value = valueAt(item, column.path);
    if (value === null || value === undefined) return null;
    const typed = convert(column.type, value);
    if (typed === undefined) {
      this.#misfits.set(column.name, (this.#misfits.get(column.name) ?? 0) + 1);
      return null;
    }
    return typed;
  }

  #open(): ParquetWriter {
    this.#writer ??= new ParquetWriter({ writer: this.#bytes, schema: schemaOf(this.#columns!), createdBy: `tenders ${VERSION}` });
    return this.#writer;
  }

  /** Writes the held rows as one row group and returns its bytes. */
  #flush(): Uint8Array {
    const columns = this.#columns!;
    void this.#open().write({ columnData: columns.map((c) => ({ name: c.name, data: c.values })), rowGroupSize: this.#held });
    for (const column of columns) column.values = [];
    this.#held = 0;
    return this.#take();
  }

  /** The bytes written since the last take; the writer's buffer is reused (its offset keeps counting). */
  #take(): Uint8Array {
    const bytes = this.#bytes.getBytes().slice();
    this.#bytes.index = 0;
    return bytes;
  }
}

function inferType(values: readonly unknown[]): ColumnType {
  const present = values.filter((v) => v !== null && v !== undefined);
  if (present.length === 0) return 'STRING';
  if (present.every((v) => typeof v === 'number' || v instanceof RawNumber)) return 'DOUBLE';
  if (present.every((v) => typeof v === 'boolean')) return 'BOOLEAN';
  if (present.every((v) => typeof v === 'string' && parseInstant(v))) return 'TIMESTAMP';
  return 'STRING';
}

/** The value as its column's type holds it; undefined when it does not fit. */
function convert(type: ColumnType, value: unknown): unknown {
  switch (type) {
    case 'STRING':
      return cellText(value);
    case 'DOUBLE':
      return typeof value === 'number' ? value : value instanceof RawNumber ? Number(value.text) : undefined;
    case 'BOOLEAN':
      return typeof value === 'boolean' ? value : undefined;
    case 'TIMESTAMP':
      return typeof value === 'string' ? parseInstant(value)?.date : undefined;
  }
}

function schemaOf(columns: readonly Column[]): SchemaElement[] {
  return [{ name: 'root', num_children: columns.length }, ...columns.map(({ name, type }) => element(name, type))];
}

function element(name: string, type: ColumnType): SchemaElement {
  const repetition_type = 'OPTIONAL';
  switch (type) {
    case 'STRING':
      return { name, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' }, repetition_type };
    case 'DOUBLE':
      return { name, type: 'DOUBLE', repetition_type };
    case 'BOOLEAN':
      return { name, type: 'BOOLEAN', repetition_type };
    case 'TIMESTAMP':
      return {
        name,
        type: 'INT64',
        converted_type: 'TIMESTAMP_MILLIS',
        logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
        repetition_type,
      };
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
