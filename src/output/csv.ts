import { stringify } from 'csv-stringify/sync';
import type { FormatOptions, Formatter, FormatterState } from './formatter.js';
import { headerNames, type HeaderStyle } from './header-style.js';
import { NewFields } from './new-fields.js';
import { cellText, compilePaths, discoverPaths, valueAt } from './paths.js';

/**
 * RFC 4180 CSV through csv-stringify, nested fields flattened to dot-path
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
  /** Undefined with --columns: the user chose what to leave out. */
  #newFields: NewFields | undefined;

  constructor(opts: FormatOptions, resume?: FormatterState) {
    this.#rows = resume?.rows ?? 0;
    this.#header = opts.header && this.#rows === 0;
    this.#headerStyle = opts.headerStyle;
    this.excelSafe = opts.excelSafe;
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
    const records: string[][] = this.#rows === 0 && this.#header ? [this.#headerRow()] : [];
    for (const item of items) {
      const row = new Array<string>(paths.length);
      for (let i = 0; i < paths.length; i++) row[i] = cellText(valueAt(item, paths[i]!));
      records.push(row);
    }
    this.#rows += items.length;
    return this.encode(records);
  }

  /** An empty export still gets its header when the columns are known. */
  end(): string {
    if (this.#rows > 0 || !this.#header || !this.#columns) return '';
    return this.encode([this.#headerRow()]);
  }

  /** Rows of cells as text: RFC 4180 here, another flat text format in a subclass (TSV). */
  protected encode(records: string[][]): string {
    return stringify(records, { escape_formulas: this.excelSafe });
  }

  #headerRow(): string[] {
    return headerNames(this.#columns!, this.#headerStyle);
  }

  state(): FormatterState {
    const dropped = this.droppedFields();
    return { rows: this.#rows, columns: this.#columns, ...(dropped.length ? { droppedFields: dropped } : {}) };
  }

  droppedFields(): string[] {
    return this.#newFields?.fields ?? [];
  }

  #setColumns(columns: string[] | undefined) {
    this.#columns = columns;
    this.#paths = columns && compilePaths(columns);
  }
}
