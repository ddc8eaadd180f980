import type { Client } from '../api/client.js';
import type { IO } from '../io.js';
import type { FileSystem } from '../output/fs.js';
import type { Format } from '../output/formatter.js';
import type { SortPaths } from '../query/sort-paths.js';
import type { ReceiptPlan } from './receipt.js';
import type { HeaderStyle } from '../output/header-style.js';
import type { ColumnSpec } from '../output/table-columns.js';
import type { SavedQuery } from './watch/state.js';

/** What a run is given rather than builds: the terminal, the service, the stop signal. */
export interface RunDeps {
  io: IO;
  client: Client;
  /** Aborted on SIGINT/SIGTERM. */
  signal: AbortSignal;
  /** Output files' file system: Node's, or one that fails on purpose in a test. */
  fs?: FileSystem;
}

/** How to reach the service; from the global flags and environment. */
export interface ConnectionPlan {
  baseUrl: URL;
  /** --timeout: each attempt, from sending the request to the last byte of the answer. */
  timeoutMs: number;
  retries: number;
  /** --max-wait, in ms: a longer Retry-After ends the run. */
  maxWaitMs: number;
  /** --rate: requests per second across the run; absent: unlimited. */
  rate?: number;
  verbose: boolean;
  quiet: boolean;
  /** --dry-run: print the first requests instead of sending any. */
  dryRun: boolean;
}

/** A request a run sends first; --dry-run prints these and sends nothing. */
export interface FirstRequest {
  path: string;
  body: Record<string, unknown>;
}

/** What to ask: an operation's path and its request body (without cursor). */
export interface QueryPlan {
  path: string;
  body: Record<string, unknown>;
  /** Plural noun for messages: "tenders", "organisations". */
  noun: string;
  /** The command that lists the fields of the results, for advice. */
  fieldsCommand?: string;
}

export interface OutputPlan {
  format: Format;
  columns?: string[];
  /** The table's columns without --columns, and the one the results are sorted by. */
  defaultColumns?: readonly ColumnSpec[];
  sortColumn?: string;
  header: boolean;
  headerStyle: HeaderStyle;
  excelSafe: boolean;
  /** -o FILE; stdout when absent. */
  file?: string;
  /** --resume: continue an interrupted export into `file`. */
  resume: boolean;
}

/** A search or export: walk pages of one query into one output. */
export interface WalkPlan {
  connection: ConnectionPlan;
  query: QueryPlan;
  /** Start from this cursor (search --cursor). */
  cursor?: string;
  /** --shown: how many results the pages before --cursor showed, for "Showing 6–10". */
  shown?: number;
  /** Follow nextCursor past the first page. */
  all: boolean;
  /** Stop after this many results. */
  max?: number;
  /** Print "1–25 of 10,000+" and the next cursor (search). */
  hints: boolean;
  /** The command's arguments without --cursor: the next-page hint is `tenders ARGS --cursor C`. */
  nextPageArgs?: readonly string[];
  /** Keep a resume state beside the output file (export -o). */
  resumable: boolean;
  /** --parallel: requests in flight at most, one cursor chain per partition; 1 walks one chain. */
  parallel: number;
  /** --sort-path: where results carry their sort values, for the merge of partitions. */
  sortPaths?: SortPaths;
  /** --receipt FILE: a record of the run, written when it ends. */
  receipt?: ReceiptPlan;
  output: OutputPlan;
}

/** A run of `tenders watch NAME`: walk its query, report what changed, move its state forward. */
export interface WatchPlan {
  name: string;
  /** The directory of the watch's state. */
  dir: string;
  connection: ConnectionPlan;
  /** The query of the command line; undefined: the saved one (or every tender, the first time). */
  query?: SavedQuery;
  /** The API path of a query: the tender search, or an organisation's tenders. */
  pathFor(org: string | null): string;
  /** Results per page asked for. */
  limit: number;
  /** Report only new tenders, paging only as far as they go. */
  newOnly: boolean;
  /** The first run prints every tender as new ('all') or records them silently ('none'). */
  initial: 'none' | 'all';
  /** Replace the query and record a new baseline. */
  reset: boolean;
  /** --parallel: as for export (a --new-only run stops early only on one chain). */
  parallel: number;
  sortPaths?: SortPaths;
  receipt?: ReceiptPlan;
  output: OutputPlan;
}
