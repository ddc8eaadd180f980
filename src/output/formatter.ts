import type { FeedSource, WatchFeedInfo } from './formats/atom-formatter.js';
import { formatDefinition, type Format } from './format-registry.js';
import type { HeaderStyle } from './header-style.js';
import type { ColumnSpec } from '../model/column-spec.js';
import type { Reporter } from './terminal/reporter.js';

/** What a formatter emits: text, or bytes for a binary format; every sink and the digest take either. */
import type { Chunk } from '../files/sink.js';

export type { Chunk };

/** Chunks as one: text stays text; bytes when any is bytes. */
export function joinChunks(chunks: readonly Chunk[]): Chunk {
  if (chunks.every((chunk) => typeof chunk === 'string')) return chunks.join('');
  return Buffer.concat(chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk)));
}

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
  /** ocds: tenders so far by each status OCDS has no code for. */
  unmapped?: Record<string, number>;
}

/** Turns pages of results into chunks, a page at a time (one chunk per page; '' when it holds them for later). */
export interface Formatter {
  page(items: readonly Record<string, unknown>[]): Chunk;
  /** What comes after the last page (closing bracket, header of an empty CSV, a binary format's last row group...). */
  end(): Chunk;
  state(): FormatterState;
  /** Lines for a person on stderr once the output is written (the table's hidden columns): a terminal or --verbose only. */
  hints?(): string[];
  /**
   * What the output lost or bent (fields past its columns, values its types
   * cannot hold, what its standard cannot say): warnings once it is written,
   * shown in cron too, as only --quiet hides them.
   */
  warnings?(): string[];
  /** Fields of the data this output leaves out unasked (CSV columns fixed by the first page). */
  droppedFields?(): readonly string[];
}

/** What the user chose of a format's options (the flags); a plan's output carries these. */
export interface FormatChoice {
  /** --columns: which dot paths to print or project. */
  columns?: string[];
  /** Table columns when --columns is not given; the first page decides otherwise. */
  defaultColumns?: readonly ColumnSpec[];
  /** Table: every default column, whatever the first page holds (records of the CLI's own, whose fields are known). */
  allDefaults?: boolean;
  /** Table: the field the results are sorted by, kept longest after the first column. */
  sortColumn?: string;
  /** Table: the fields the query filters by (a range, several values), kept before the text is cut further. */
  filterColumns?: readonly string[];
  /** Table on a terminal: a change's old and new value, shown under its row as a word diff, never cut (tenders changes). */
  diff?: { old: string; new: string };
  header: boolean;
  /** CSV and table: dot-path headers as paths or snake_case. */
  headerStyle: HeaderStyle;
  excelSafe: boolean;
  /** ics: minutes before the deadline of each reminder (--remind); undefined: 7 days and 1 day. */
  reminders?: readonly number[];
  /** ocds: what each ocid starts with (--ocid-prefix). */
  ocidPrefix?: string;
  /** Where tenders' CPV codes are (the cpv-paths setting, or a local copy's): atom lists them, a table names them. Default model/cpv.ts DEFAULT_CPV_PATHS. */
  cpvPaths?: readonly string[];
}

/** A formatter's options: the user's choice, and what the output it writes to allows. */
export interface FormatOptions extends FormatChoice {
  /** Table: the width to fit (undefined: as wide as the data) and whether to use colour. */
  width?: number;
  color: boolean;
  /** The output is a terminal: control characters in the data must not reach it raw; the table groups thousands. */
  terminal?: boolean;
  /** Rows are a watch's changes (atom: an entry per change, ids stable per change). */
  watch?: WatchFeedInfo;
  /** Atom: the service and query a search's or export's feed is of, for its id. */
  feedSource?: FeedSource;
}

/**
 * Loads only the module the chosen format needs (start-up time matters). On a
 * terminal, a format whose traits say `json` or `text` is neutralised as a
 * whole (the table cleans its own cells and keeps its bold header); elsewhere
 * the service's bytes pass unchanged.
 */
export async function createFormatter(format: Format, opts: FormatOptions, resume?: FormatterState): Promise<Formatter> {
  const definition = formatDefinition(format);
  const formatter = (await definition.load())(opts, resume);
  const { terminal } = definition.traits;
  if (!opts.terminal || terminal === 'self' || terminal === 'none') return formatter;
  const { neutralizeForTerminal } = await import('./terminal/sanitize.js');
  const json = terminal === 'json';
  const neutralize = (text: string) => neutralizeForTerminal(text, json);
  // CRLF line ends (iCalendar's) are layout, kept; what is between them is cleaned.
  const text = terminal === 'crlf-text' ? (chunk: string) => chunk.split('\r\n').map(neutralize).join('\r\n') : neutralize;
  const clean = (chunk: Chunk): Chunk => (typeof chunk === 'string' ? text(chunk) : chunk);
  return new Proxy(formatter, {
    // Every method forwarded; only the data on its way out is cleaned.
    get(target, key) {
      if (key === 'page') return (items: readonly Record<string, unknown>[]) => clean(target.page(items));
      if (key === 'end') return () => clean(target.end());
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** What a formatter says once its output is written: its hints (a terminal, --verbose), then its warnings (always). */
export function sayAfterOutput(formatter: Formatter, say: Reporter): void {
  for (const line of formatter.hints?.() ?? []) say.hint(line);
  for (const line of formatter.warnings?.() ?? []) say.warn(line);
}
