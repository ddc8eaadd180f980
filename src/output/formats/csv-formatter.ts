import type { FormatOptions, Formatter, FormatterState } from '../formatter.js';
import { csvField, csvRecord, type CsvField } from './csv-record.js';
import { headerNames, type HeaderStyle } from '../header-style.js';
import { NewFields, newFieldsWarning } from './new-fields.js';
import { cellText, compilePaths, discoverPaths, valueAt } from '../../model/paths.js';

/**
 * RFC 4180 CSV (csv-record.ts), nested fields flattened to dot-path
 * columns. The columns are --columns, else the first page's fields; they stay
 * fixed for the whole export so every row lines up with the header, and fields
 * that later pages bring are noted (droppedFields) rather than silently lost.
 */
export class CsvFormatter implements Formatter {
  #columns: string[] | undefined;
  #paths: string[][] | undefined;
  #rows: number;
  readonly #header: boolean;
  readonly #headerStyle: HeaderStyle;
  protected readonly excelSafe: boolean;
  readonly #field: CsvField;
  /** Undefined with --columns: the user chose what to leave out. */
  #newFields: NewFields | undefined;
  /** The file as its warnings name it. */
  protected readonly name: string = 'CSV';

  constructor(opts: FormatOptions, resume?: FormatterState) {
    this.#rows = resume?.rows ?? 0;
    this.#header = opts.header && this.#rows === 0;
    this.#headerStyle = opts.headerStyle;
    this.excelSafe = opts.excelSafe;
    this.#field = csvField(opts.excelSafe);
    this.#setColumns(resume?.columns ?? opts.columns);
    if (!opts.columns && resume?.columns) this.#newFields = new NewFields(resume.columns, resume.droppedFields);
  }

  page(items: readonly Record<string, unknown>[]): string {
    if (items.length === 0) return '';
    if (!this.#columns) {
      this.#setColumns(discoverPaths(items));
      this.#newFields = new NewFields(this.#columns!);
    } else this.#newFields?.scan(items);
    const paths = this.#paths!;
    let out = this.#rows === 0 && this.#header ? this.#headerRecord() : '';
    const cells = new Array<string>(paths.length); // one for the page, not one per row
    for (const item of items) {
      for (let i = 0; i < paths.length; i++) cells[i] = cellText(valueAt(item, paths[i]!));
      out += this.record(cells);
    }
    this.#rows += items.length;
    return out;
  }

  /** An empty export still gets its header when the columns are known. */
  end(): string {
    if (this.#rows > 0 || !this.#header || !this.#columns) return '';
    return this.#headerRecord();
  }

  /** One record, its line end included: RFC 4180 here, another flat text format in a subclass (TSV). */
  protected record(cells: readonly string[]): string {
    return csvRecord(cells, this.#field);
  }

  #headerRecord(): string {
    return this.record(headerNames(this.#columns!, this.#headerStyle));
  }

  state(): FormatterState {
    const dropped = this.droppedFields();
    return { rows: this.#rows, columns: this.#columns, ...(dropped.length ? { droppedFields: dropped } : {}) };
  }

  droppedFields(): string[] {
    return this.#newFields?.fields ?? [];
  }

  /** The fields left out, with the --columns that includes them (those of an interrupted run too, when resumed). */
  warnings(): string[] {
    const dropped = this.droppedFields();
    return dropped.length ? [newFieldsWarning(dropped, this.#columns ?? [], this.name)] : [];
  }

  #setColumns(columns: string[] | undefined) {
    this.#columns = columns;
    this.#paths = columns && compilePaths(columns);
  }
}
