/**
 * The watches a copy keeps, as run/ sees them (opened by `openWatches` in
 * ./open.ts): a watch's saved search and summary (`WatchRecord`) and its
 * tenders' rows, read and replaced under the watch's lock. Only a PostgreSQL
 * copy keeps watches (./postgres-watches.ts); a file-kept watch's state is
 * its file (run/watch/state.ts), and the tables are in docs/local-copy-postgres.md.
 */

import type { SavedSearchInfo } from '../model/saved-search.js';
import type { OpenOptions } from './store.js';

/**
 * A watch's state but its tenders: its state file's header and summary, the
 * saved search (model/saved-search.ts) with what its next run compares by.
 * The query is JSON with every digit (RawNumbers), as the row holds it: one
 * edited by hand is checked where it is read as a state (run/watch/state.ts).
 * No service (a NULL in the row): a state from before it was kept.
 */
export interface WatchRecord extends SavedSearchInfo {
  /** The state format's version. */
  format: number;
  newestPublicationDate: string | null;
  fields: string[][];
}

/** A tender of a watch's state: the JSON texts of its id, title and deadline (null: not kept) and its field hashes (base64url). */
export type WatchTenderRow = [id: string, hashes: string, title: string | null, deadline: string | null];

export type WatchOpenOptions = Pick<OpenOptions, 'mode' | 'schema' | 'env' | 'busyTimeoutMs' | 'signal'>;

export interface WatchStore {
  /** Which copy this is (user, server, database, schema), whatever the URL left to libpq's variables. */
  readonly identity: string;
  /** The copy, as printed: its URL without password. */
  readonly location: string;
  /** Takes the watch's lock (a second run of it fails at once, naming the holder); its reads and save go through it. */
  lock(name: string): Promise<WatchLock>;
  /** Every watch of the copy, by name. */
  list(): Promise<WatchRecord[]>;
  /** The watch `name`, or undefined. */
  get(name: string): Promise<WatchRecord | undefined>;
  close(): Promise<void>;
}

/** One watch, its lock held. */
export interface WatchLock {
  readonly name: string;
  /** Throws once the lock is lost (its connection gone). */
  check(): void;
  /** The watch's tenders in its state's order, in batches, from one snapshot. */
  tenders(): AsyncGenerator<WatchTenderRow[]>;
  /** Replaces the watch's state with `record` and `tenders`, at once. */
  save(record: WatchRecord, tenders: AsyncIterable<WatchTenderRow[]>): Promise<void>;
  /** Deletes the watch; false when there is none. */
  forget(): Promise<boolean>;
  /** Releases the lock. */
  release(): Promise<void>;
}
