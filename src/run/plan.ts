import type { Client } from '../api/client.js';
import type { IO } from '../io.js';
import type { FileSystem } from '../files/fs.js';
import type { Format } from '../output/format-registry.js';
import type { FormatChoice } from '../output/formatter.js';
import type { SortPaths } from '../query/sort-paths.js';
import type { StoreTarget } from '../store/location.js';
import type { ReceiptPlan } from './receipt.js';
import type { SavedQuery } from '../model/saved-search.js';
import type { Webhook } from './watch/webhook-url.js';

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


/** What to ask: an operation's path and its request body (without cursor). */
export interface QueryPlan {
  path: string;
  body: Record<string, unknown>;
  /** Plural noun for messages: "tenders", "organisations". */
  noun: string;
  /** The command that lists the fields of the results, for advice. */
  fieldsCommand?: string;
}

/** The output of a run: its format and that format's options, and where it goes. */
export interface OutputPlan extends FormatChoice {
  format: Format;
  /** -o FILE; stdout when absent. */
  file?: string;
  /** --resume: continue an interrupted export into `file`. */
  resume: boolean;
  /** ics: --remind, minutes before the deadline (undefined: the default reminders). */
  reminders?: readonly number[];
  /** ocds: --ocid-prefix. */
  ocidPrefix?: string;
  /** `-o FILE.gz`: the format's bytes compressed with gzip. */
  gzip?: boolean;
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
  /** The command line as it was run, without --cursor: the next-page hint is it plus `--cursor C`. */
  nextPageCommand?: readonly string[];
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
  /**
   * The directory of the watch's state file: where it lives without `db`; with
   * `db`, where a file kept before is moved in from (undefined: none known).
   */
  dir?: string;
  /** --db or TENDERS_DB when it names a PostgreSQL copy: the watch's state is kept there. */
  db?: StoreTarget;
  /** Where a run with `db` keeps its work files (TMPDIR). */
  tempDir: string;
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
  /** --webhook (or TENDERS_WEBHOOK): POSTed the changes of a run that has any. */
  webhooks: readonly Webhook[];
  /** --webhook-changes: the changes a webhook's document holds at most. */
  webhookChanges: number;
  /** --feed FILE: the rolling Atom feed of the watch's changes. */
  feed?: string;
  /** --feed-size: the entries the feed keeps. */
  feedSize: number;
}

/** A run of `tenders sync NAME`: walk its query into the local copy, one transaction at the end. */
export interface SyncPlan {
  name: string;
  /** The copy: a SQLite file path or a postgres:// URL, and how to reach it (storeTarget). */
  db: StoreTarget;
  connection: ConnectionPlan;
  /** The query of the command line; undefined: the saved one (or every tender, the first time). */
  query?: SavedQuery;
  /** The API path of a query: the tender search, or an organisation's tenders. */
  pathFor(org: string | null): string;
  /** Results per page asked for. */
  limit: number;
  /** Record only new tenders, paging only as far as they go. */
  newOnly: boolean;
  /** Replace the saved query or service. */
  reset: boolean;
  parallel: number;
  sortPaths?: SortPaths;
  receipt?: ReceiptPlan;
  /** Where the tenders' CPV codes are (the cpv-paths setting): the copy's codes are read from them. */
  cpvPaths: readonly string[];
}
