/**
 * The local copy `tenders sync` keeps and `--local` queries read: ONE
 * interface, two engines (SQLite in ./sqlite.ts, PostgreSQL in ./postgres.ts
 * exporting `openPostgresStore(url, options): Promise<Store>`), opened by
 * `openStore(location, options)` in ./open.ts.
 * Both engines run the SQL of one layer (./sql/: a dialect object, the
 * selection, reads and a run's writes), built once for both.
 * The code that walks, diffs and records changes only sees this interface.
 * The tables behind it are part of the product too: docs/local-copy-schema.md.
 *
 * Documents go in and come out as the online walk holds them: plain JSON
 * values with RawNumbers for numbers a double cannot hold (model/exact-json.ts).
 * Each is stored as its JSON text (stringifyJson: every digit kept) and read
 * back with model/json-parse.ts parseJson, so a stored tender equals the fetched one.
 */

import type { JsonObject } from '../model/exact-json.js';
import type { LocalSelection } from '../model/local-selection.js';
import type { SavedSearch } from '../model/saved-search.js';

/** A change of one tender as a run (sync or watch) records it. `new` also when a gone tender comes back. */
export type ChangeKind = 'new' | 'changed' | 'gone';

/**
 * What a sync is: a saved search (model/saved-search.ts) whose service is
 * always known. Its name is checked (model/saved-name.ts; else UsageError).
 * The store keeps the query as any JSON object (the sync command saves a
 * SavedQuery) and compares it as canonical JSON between runs.
 */
export interface SyncDefinition extends Omit<SavedSearch, 'query'> {
  query: JsonObject;
  service: string;
}

export interface SyncInfo extends SyncDefinition {
  /** ISO timestamp of the first complete run (when the sync was created). */
  created: string;
  /** The receipt of the newest run, complete or not; null never (a sync exists once a run completed). */
  lastRun: RunReceipt;
  /** End of the newest complete run: how old this sync's copy is. */
  lastComplete: string;
  /** Tenders the sync holds now (matched by its last complete run, or added by --new-only runs since). */
  tenders: number;
  /**
   * End of the newest complete run that may have changed what this sync holds: one of its own that
   * changed something (its baseline included), or one of another sync that wrote documents (a
   * tender both hold). A run that changed nothing leaves it as it was (tenders serve's ETags).
   */
  lastChange: string;
}

/**
 * `full`: every tender of the query; after commit the sync holds exactly them,
 * with new, changed (per field) and gone recorded. `new-only`: the walk may stop
 * early (at the first page without a new tender, see SyncRun.known); only new
 * tenders are recorded; a changed or gone tender is not seen until a full run.
 */
export type RunMode = 'full' | 'new-only';

export interface RunCounts {
  new: number;
  changed: number;
  gone: number;
  /** Held before and equal now. */
  unchanged: number;
  /** Tenders added, repeats and tenders without an id included. */
  seen: number;
  /** The same id added twice in one run: the last one counts, once. */
  repeated: number;
  /** Tenders without a string or number `id`: not stored. */
  withoutId: number;
}

/** What the walk reports when a run ends. */
export interface RunFacts {
  /** The walk reached the end of every chain. false: only the receipt is recorded, the copy stays as it was. */
  complete: boolean;
  pages: number;
  requests: number;
  /** Why an incomplete run stopped (one line), for the receipt. */
  error?: string;
}

/** The `runs` row of one run: kept for every run, complete or not. */
export interface RunReceipt {
  run: number;
  sync: string;
  query: JsonObject;
  service: string;
  mode: RunMode;
  /** The first run of a sync: its tenders are recorded, but no `new` change rows (the baseline). */
  baseline: boolean;
  startedAt: string;
  endedAt: string;
  complete: boolean;
  pages: number;
  requests: number;
  counts: RunCounts;
  error: string | null;
  /** The paths the copy's CPV codes were read from before this run's commit read every one again with its own (not a column of `runs`). */
  recodedFrom?: readonly string[];
}

export interface RunOptions {
  sync: SyncDefinition;
  mode: RunMode;
  /** Replace a saved query or service that differs (--reset): otherwise such a difference is a UsageError. */
  reset?: boolean;
  /**
   * Where the tenders' CPV codes are (the cpv-paths setting; default model/cpv.ts DEFAULT_CPV_PATHS).
   * A copy whose codes were read from other paths has every stored tender's read again at commit (store/cpv-recode.ts).
   */
  cpvPaths?: readonly string[];
}

/**
 * One sync run being written. Nothing of it is visible to readers (nor left
 * behind by a killed process) until commit, which applies it in one
 * transaction. Holds the sync's writer lock from beginRun to commit/abort.
 */
export interface SyncRun {
  /** No complete run of this sync yet: this run records the baseline. */
  readonly baseline: boolean;
  /** Which of `ids` the sync holds now (before this run): --new-only pages until a page has no id outside. */
  known(ids: readonly string[]): Promise<Set<string>>;
  /** One page of the walk, in the walk's order; memory does not grow with the run. A page the run could not take fails a later call. */
  add(tenders: readonly Record<string, unknown>[]): Promise<void>;
  /**
   * Ends the run: when `facts.complete`, computes new/changed/gone against the
   * sync's previous state, writes tenders, membership, changes and the receipt
   * in one transaction; otherwise writes only the receipt. Releases the lock.
   * A complete commit of a run that could not take a page fails and leaves the
   * run open: its caller records why with an incomplete commit, or aborts.
   */
  commit(facts: RunFacts): Promise<RunReceipt>;
  /** Drops the run (interrupted, failed before any receipt makes sense): the database stays as it was. Idempotent. */
  abort(): Promise<void>;
}

export interface SelectOptions {
  /** At most this many tenders (default: all). */
  limit?: number;
  /** Continue after the tender with this id, in the selection's order (the next page); an id not in the selection is a UsageError. */
  after?: string;
  /**
   * Continue after this position (tenders serve's cursors), whether or not its tender is still
   * there: a keyset that stays right while a sync writes. Not with `after`.
   */
  from?: SortPosition;
}

/** A place in a selection's order: the sort column's value (columns.ts sortPosition) and the id. */
export interface SortPosition {
  key: string | number;
  id: string;
}

/** How `count` groups: with byPath `cpv`, the codes cut to a level of the hierarchy (model/cpv.ts cpvAtLevel; default 8, each code). */
export interface CountOptions {
  cpvLevel?: 2 | 3 | 4 | 5 | 8;
  /**
   * Counts the selection's tenders no further than this (no `byPath`): the total is
   * min(count, atMost), read without walking the whole selection when it is larger
   * (a page's capped total needs no more).
   */
  atMost?: number;
}

/** One value of `count(selection, byPath)`. */
export interface LocalCount {
  /** The field's JSON value (RawNumber kept); `undefined` for tenders without the field. */
  value: unknown;
  count: number;
}

export interface LocalCounts {
  /** Tenders in the selection. */
  total: number;
  /** With byPath: one row per distinct value, most frequent first, then by the value's JSON text (absent first). */
  rows: LocalCount[];
}

export interface ChangeFilter {
  /** Changes of this sync's runs, and `changed` rows of tenders it holds recorded by another sync's run. */
  sync?: string;
  /** ISO timestamp, inclusive. */
  since?: string;
  /** One tender's history. */
  id?: string;
}

/** One row of the `changes` table. Oldest first: by run, then tender id, then as recorded (a run records new, then changed fields, then gone). */
export interface ChangeRecord {
  run: number;
  sync: string;
  id: string;
  kind: ChangeKind;
  /** Dot path of the changed leaf field (`changed` only, else null). */
  field: string | null;
  /** The field's JSON value before and after (`undefined`: absent). */
  old: unknown;
  new: unknown;
  /** ISO timestamp of the run's commit. */
  at: string;
}

/** What `tenders serve`'s change search selects: every field narrows (absent: no restriction). */
export interface ChangeSearch {
  /** Changes that count for any of these syncs, as ChangeFilter.sync counts them for one; an empty list selects nothing. */
  syncs?: string[];
  /** ISO timestamp, inclusive. */
  since?: string;
  kinds?: ChangeKind[];
  /** One tender's history. */
  id?: string;
}

/** A change with its row's key in `changes`: (at, seq) orders the history newest first, one row after another. */
export interface KeyedChange extends ChangeRecord {
  seq: number;
}

/** A page of a change search: at most `limit` (default all) changes before `before` (a keyset; none: from the newest). */
export interface ChangePageOptions {
  limit?: number;
  before?: { at: string; seq: number };
  /** Also count every change the search selects, in the same snapshot. */
  count?: boolean;
}

/** One tender of the copy with its life in it (`tenders show`). */
export interface StoredTender {
  /** The document as the last run that saw it stored it. */
  tender: Record<string, unknown>;
  /** ISO timestamp of the run that first stored it. */
  firstSeen: string;
  /** ISO timestamp of the run that found it gone; null while the service lists it. */
  goneAt: string | null;
  /** The syncs that hold it or held it, by name. */
  syncs: string[];
}

export interface StoreStatus {
  /** Where the copy is: the file path, or the URL without password. */
  location: string;
  schemaVersion: number;
  syncs: number;
  /** Tenders not gone. */
  tenders: number;
  /** End of the newest complete run (of `sync` when given); null before any. */
  lastComplete: string | null;
}

export interface Store {
  /** Starts a run of `options.sync`. A second writer of the same name: RunError at once naming the holder (pid, host, since). */
  beginRun(options: RunOptions): Promise<SyncRun>;
  /** The selection's tenders in the service's order (spec 3.2, ties by id in the same direction), in batches. */
  select(selection: LocalSelection, options?: SelectOptions): AsyncGenerator<Record<string, unknown>[]>;
  /**
   * Exact counts; `byPath` a dot path into the documents (buyer.name); a path no stored tender has is a UsageError.
   * `cpv`: per CPV code (a tender under each of its codes, once per group at `options.cpvLevel`), tenders without one as no value.
   */
  count(selection: LocalSelection, byPath?: string, options?: CountOptions): Promise<LocalCounts>;
  changes(filter?: ChangeFilter): AsyncGenerator<ChangeRecord[]>;
  /** The selected changes newest first (at, then seq, descending), one page; `total` when asked to count. */
  searchChanges(search: ChangeSearch, options?: ChangePageOptions): Promise<{ changes: KeyedChange[]; total?: number }>;
  /** Where the copy's CPV codes were read from: the cpv-paths of the sync that last wrote them (the default in a copy that records none). */
  cpvPaths(): Promise<readonly string[]>;
  /** The secret `tenders serve` signs cursors with, written into the copy when a sync made or upgraded it; undefined in a copy without it. */
  cursorSecret(): Promise<string | undefined>;
  /** Which state of the copy reads see now: another answer once a sync committed or was forgotten (sql/reads.ts readGeneration). */
  generation(): Promise<string>;
  /** One tender by id, gone or not; undefined for an id the copy does not hold. */
  getTender(id: string): Promise<StoredTender | undefined>;
  listSyncs(): Promise<SyncInfo[]>;
  /** The saved definition of a sync, or undefined. */
  getSync(name: string): Promise<SyncInfo | undefined>;
  /** Removes the sync, its membership, runs and changes, and the tenders no other sync holds; UsageError for an unknown name. */
  forget(name: string): Promise<{ tenders: number }>;
  status(sync?: string): Promise<StoreStatus>;
  /**
   * A view of the copy whose reads all see one snapshot of it (one read transaction on one
   * connection), whatever a sync commits meanwhile, until its close() ends the transaction
   * (the store stays open). A request of `tenders serve` reads through one. It writes nothing.
   */
  snapshot(): Promise<Store>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /**
   * `read`: a missing copy is a RunError ("run tenders sync first") and nothing
   * is created or upgraded; `write`: created (with its directory) or upgraded.
   */
  mode: 'read' | 'write';
  /**
   * `read` of the syncs' definitions only (getSync, listSyncs), which every
   * schema version holds alike: a copy of an older version is read as it is,
   * not refused (a dry run, a list, before the sync that upgrades it).
   */
  definitionsOnly?: boolean;
  /** How long a writer waits for another sync's commit before a RunError (ms; default 30 000). */
  busyTimeoutMs?: number;
  /**
   * PostgreSQL: the schema the tables live in when the URL has no `?schema=`
   * (the command layer passes $TENDERS_DB_SCHEMA); created if missing. Ignored by SQLite.
   */
  schema?: string;
  /** PostgreSQL: the most connections this store opens at once (the command passes --parallel + 1; default 4). */
  connections?: number;
  /**
   * SQLite, `read`: the file is read, not mapped into memory. For a reader that reads what it selects
   * once, whole (tenders serve's downloads): mapped, every page read stays in the process's resident
   * memory until the reader closes, so a download's memory grew with the copy. Ignored by PostgreSQL.
   */
  unmapped?: boolean;
  /** PostgreSQL: each statement's time limit (statement_timeout, ms; tenders serve's --query-timeout); none by default. Ignored by SQLite. */
  statementTimeoutMs?: number;
  /**
   * PostgreSQL: the command's environment, where the libpq variables a URL
   * leaves out are read (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE,
   * PGSSLMODE, PGPASSFILE, and HOME for ~/.pgpass); never the process's own.
   * Default: none of them. Ignored by SQLite.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The run's interruption (Ctrl-C). A commit waiting for another writer
   * (PostgreSQL: behind another sync's commit, on a table another holds;
   * SQLite: for another sync's commit, within a tenth of a second) is stopped;
   * one under way is undone before its COMMIT. It fails with the signal's
   * reason: the copy stays as it was.
   */
  signal?: AbortSignal;
}

/** How long a writer waits for another sync's commit unless OpenOptions says (ms). */
export const DEFAULT_BUSY_TIMEOUT_MS = 30_000;


/** A PostgreSQL URL (the rest is a SQLite path): what openStore (./open.ts) dispatches on. */
export function isPostgresLocation(location: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(location);
}
