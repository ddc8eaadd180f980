import { UsageError } from '../errors.js';
import type { HeaderStyle } from './header-style.js';
import type { ColumnSpec } from './table-columns.js';

export const FORMATS = ['table', 'csv', 'ndjson', 'json', 'tsv', 'ics', 'atom', 'ocds', 'parquet'] as const;
export type Format = (typeof FORMATS)[number];

/** What a formatter returns for a page: text, or bytes for a binary format (Parquet). */
export type Chunk = string | Uint8Array;

/** Formats whose files --resume cannot continue (Parquet's footer indexes every row group written). */
export const UNRESUMABLE: ReadonlySet<Format> = new Set(['parquet']);
/** Formats never written to a terminal (exit 2): binary. */
export const BINARY: ReadonlySet<Format> = new Set(['parquet']);
/** Formats whose text is JSON, neutralised for a terminal with JSON escapes. */
const JSON_TEXT: ReadonlySet<Format> = new Set(['ndjson', 'json', 'ocds']);

/** What a formatter must carry across a resumed export to continue its output exactly. */
export interface FormatterState {
  rows: number;
  columns?: string[];
  /** Table: the column widths the first page set, and which columns are right-aligned. */
  widths?: number[];
  rightAligned?: boolean[];
  /** CSV: fields later pages had that its columns leave out. */
  droppedFields?: string[];
  /** ics: tenders left out so far (no deadline). */
  leftOut?: number;
}

/** Turns pages of results into text, a page at a time (one chunk per page). */
export interface Formatter {
  page(items: readonly Record<string, unknown>[]): Chunk;
  /** Text after the last page (closing bracket, header of an empty CSV...). */
  end(): Chunk;
  state(): FormatterState;
  /** Lines for a person on stderr once the output is written (the table's hidden columns). */
  hints?(): string[];
  /** Fields of the data this output leaves out unasked (CSV columns fixed by the first page). */
  droppedFields?(): readonly string[];
}

export interface FormatOptions {
  /** --columns: which dot paths to print or project. */
  columns?: string[];
  /** Table columns when --columns is not given; the first page decides otherwise. */
  defaultColumns?: readonly ColumnSpec[];
  /** Table: the field the results are sorted by, kept longest after the first column. */
  sortColumn?: string;
  header: boolean;
  /** CSV and table: dot-path headers as paths or snake_case. */
  headerStyle: HeaderStyle;
  excelSafe: boolean;
  /** Table: the width to fit (undefined: as wide as the data) and whether to use colour. */
  width?: number;
  color: boolean;
  /** The output is a terminal: control characters in the data must not reach it raw; the table groups thousands. */
  terminal?: boolean;
  /** ics: minutes before the deadline of each reminder (--remind); undefined: 7 days and 1 day. */
  reminders?: readonly number[];
  /** ocds: what each ocid starts with (--ocid-prefix). */
  ocidPrefix?: string;
}

/** Binary output on a terminal would garble it: refused before any request (exit 2). */
export function refuseBinaryOnTerminal(format: Format, terminal: boolean | undefined): void {
  if (terminal && BINARY.has(format)) {
    throw new UsageError(`${format} is binary and not for a terminal: write it to a file (-o tenders.${format}) or a pipe`);
  }
}

/**
 * Loads only the module the chosen format needs (start-up time matters). On a
 * terminal, CSV and JSON text is neutralised as a whole (the table cleans its
 * own cells and keeps its bold header); elsewhere the service's bytes pass
 * unchanged.
 */
export async function createFormatter(format: Format, opts: FormatOptions, resume?: FormatterState): Promise<Formatter> {
  refuseBinaryOnTerminal(format, opts.terminal);
  const formatter = await loadFormatter(format, opts, resume);
  if (!opts.terminal || format === 'table') return formatter;
  const { neutralizeForTerminal } = await import('./sanitize.js');
  const json = JSON_TEXT.has(format);
  // Only text reaches a terminal (binary formats are refused above); iCalendar's CRLF line ends are layout, kept.
  const neutralize = (chunk: Chunk) => neutralizeForTerminal(chunk as string, json);
  const text = format === 'ics' ? (chunk: Chunk) => (chunk as string).split('\r\n').map(neutralize).join('\r\n') : neutralize;
  return {
    page: (items) => text(formatter.page(items)),
    end: () => text(formatter.end()),
    state: () => formatter.state(),
    hints: formatter.hints && (() => formatter.hints!()),
    droppedFields: formatter.droppedFields && (() => formatter.droppedFields!()),
  };
}

async function loadFormatter(format: Format, opts: FormatOptions, resume?: FormatterState): Promise<Formatter> {
  switch (format) {
    case 'csv':
      return new (await import('./csv.js')).CsvFormatter(opts, resume);
    case 'ndjson':
      return new (await import('./ndjson.js')).NdjsonFormatter(opts, resume);
    case 'json':
      return new (await import('./json.js')).JsonFormatter(opts, resume);
    case 'table':
      return new (await import('./table.js')).TableFormatter(opts, resume);
    case 'tsv':
      return new (await import('./tsv.js')).TsvFormatter(opts, resume);
    case 'ics':
      return new (await import('./ics.js')).IcsFormatter(opts, resume);
    case 'atom':
      return new (await import('./atom.js')).AtomFormatter(opts, resume);
    case 'ocds':
      return new (await import('./ocds.js')).OcdsFormatter(opts, resume);
    case 'parquet':
      return new (await import('./parquet.js')).ParquetFormatter(opts);
  }
}
