import type { HeaderStyle } from './header-style.js';
import type { ColumnSpec } from './table-columns.js';

export const FORMATS = ['table', 'csv', 'ndjson', 'json'] as const;
export type Format = (typeof FORMATS)[number];

/** What a formatter must carry across a resumed export to continue its output exactly. */
export interface FormatterState {
  rows: number;
  columns?: string[];
  /** Table: the column widths the first page set, and which columns are right-aligned. */
  widths?: number[];
  rightAligned?: boolean[];
  /** CSV: fields later pages had that its columns leave out. */
  droppedFields?: string[];
}

/** Turns pages of results into text, a page at a time (one chunk per page). */
export interface Formatter {
  page(items: readonly Record<string, unknown>[]): string;
  /** Text after the last page (closing bracket, header of an empty CSV...). */
  end(): string;
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
}

/**
 * Loads only the module the chosen format needs (start-up time matters). On a
 * terminal, CSV and JSON text is neutralised as a whole (the table cleans its
 * own cells and keeps its bold header); elsewhere the service's bytes pass
 * unchanged.
 */
export async function createFormatter(format: Format, opts: FormatOptions, resume?: FormatterState): Promise<Formatter> {
  const formatter = await loadFormatter(format, opts, resume);
  if (!opts.terminal || format === 'table') return formatter;
  const { neutralizeForTerminal } = await import('./sanitize.js');
  const json = format !== 'csv';
  return {
    page: (items) => neutralizeForTerminal(formatter.page(items), json),
    end: () => neutralizeForTerminal(formatter.end(), json),
    state: () => formatter.state(),
  };
}

async function loadFormatter(format: Format, opts: FormatOptions, resume?: FormatterState): Promise<Formatter> {
  switch (format) {
    case 'csv':
      return new (await import('./csv-formatter.js')).CsvFormatter(opts, resume);
    case 'ndjson':
      return new (await import('./ndjson-formatter.js')).NdjsonFormatter(opts, resume);
    case 'json':
      return new (await import('./json-formatter.js')).JsonFormatter(opts, resume);
    case 'table':
      return new (await import('./table-formatter.js')).TableFormatter(opts, resume);
  }
}
