/**
 * A writing connection to a SQLite copy, as the store and a sync run's own
 * thread (sqlite-run-host.ts) each open one, and the bounded write
 * transaction both take.
 */

import Database from 'better-sqlite3';
import { NoCopyError, RunError, UsageError } from '../errors.js';
import { waited } from './rules.js';
import { migrate, MIGRATIONS, SCHEMA_VERSION, schemaVersion } from './sqlite-schema.js';

/** A connection that waits up to `busyTimeoutMs` for another writer, with its TEMP tables on disk (memory stays flat). */
export function connect(path: string, busyTimeoutMs: number): Database.Database {
  const db = new Database(path);
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    // This SQLite keeps TEMP tables in memory by default: a run's stage goes to a file (in TMPDIR)
    // instead, so memory does not grow with the size of a sync.
    db.exec('PRAGMA temp_store = FILE');
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** An empty copy in memory: what a store answers from before its copy exists. */
export function emptyCopy(): Database.Database {
  const db = new Database(':memory:');
  migrate(db, 0);
  return db;
}

/**
 * A connection to the copy at `path` (a file checkDatabaseFile let through):
 * for reading, a copy of this schema version; for writing, in WAL mode (so
 * readers are never blocked by a sync) and upgraded to this version. A file
 * that is no copy of ours, or of a newer version, is a UsageError.
 */
export function openCopy(path: string, mode: 'read' | 'write', busyTimeoutMs: number, olderToo = false): Database.Database {
  let db: Database.Database;
  try {
    db = connect(path, busyTimeoutMs);
  } catch (err) {
    throw new UsageError(`${path} cannot be opened as a tenders database: ${(err as Error).message}`);
  }
  try {
    const version = readVersion(db, path);
    if (version > SCHEMA_VERSION) {
      throw new UsageError(
        `${path} was written by a newer tenders (schema version ${version}; this one knows up to ${SCHEMA_VERSION}): upgrade tenders to use it`,
      );
    }
    if (mode === 'read' && version !== SCHEMA_VERSION) {
      if (version === 0) throw new NoCopyError(`no local copy in ${path} yet: run tenders sync first`);
      if (!olderToo) throw new RunError(`${path} is a local copy of an older schema (version ${version}): run tenders sync to upgrade it`);
    }
    if (mode === 'write') {
      db.exec('PRAGMA journal_mode = WAL');
      writeSettings(db);
      if (version < MIGRATIONS.length) migrate(db, version);
    }
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** The schema version, after making sure the file is a database of ours. */
function readVersion(db: Database.Database, path: string): number {
  let version: number | undefined;
  try {
    version = schemaVersion(db);
  } catch (err) {
    throw new UsageError(`${path} is not a usable SQLite database: ${(err as Error).message}`);
  }
  if (version === undefined) throw new UsageError(`${path} is a SQLite database of another program (it has no tenders tables): name another file`);
  return version;
}

/** The settings of a connection that writes a copy already in WAL mode (see sqlite.ts). */
export function writeSettings(db: Database.Database): void {
  db.exec('PRAGMA synchronous = NORMAL');
  // 16 MB of pages: enough for the indexes a run touches, and the same for every size of sync (a larger cache bought no speed, measured).
  db.exec('PRAGMA cache_size = -16384');
  // The WAL a large run fills is cut back to 64 MB once checkpointed.
  db.exec('PRAGMA journal_size_limit = 67108864');
}

/**
 * `work` in one IMMEDIATE transaction; a writer that waited its bounded time is a RunError. A run's
 * commit passes `interrupted` (its Interrupt, as interruptedBy reads it): the wait for another
 * writer asks it every WAIT_SLICE_MS, and it is asked again before COMMIT; once it says yes, the
 * transaction is undone and the commit fails at once (its caller reports the interruption).
 */
export function writeTransaction<T>(db: Database.Database, path: string, busyTimeoutMs: number, work: () => T, interrupted?: () => boolean): T {
  beginImmediate(db, path, busyTimeoutMs, interrupted);
  try {
    const result = work();
    throwIfInterrupted(interrupted);
    db.exec('COMMIT');
    return result;
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw err;
  }
}

/**
 * A run's interruption as the thread that writes sees it: a flag in memory
 * shared with the thread that takes the signals (1 once interrupted). A
 * commit waiting inside SQLite cannot be reached by a message: its thread is
 * busy waiting.
 */
export type Interrupt = Int32Array;

/** Whether the run `interrupt` belongs to was interrupted, asked as often as need be. */
export function interruptedBy(interrupt: Interrupt | undefined): (() => boolean) | undefined {
  return interrupt && (() => Atomics.load(interrupt, 0) === 1);
}

/** How long a writer waits for another inside SQLite before it asks whether it was interrupted (ms). */
const WAIT_SLICE_MS = 100;

/** Fails a write its run's interruption came before: what it did is undone by its caller. */
export function throwIfInterrupted(interrupted: (() => boolean) | undefined): void {
  if (interrupted?.()) throw new Error('interrupted while writing the copy: nothing was written');
}

/** BEGIN IMMEDIATE, waiting for another writer at most `busyTimeoutMs`, in slices when it can be interrupted. */
function beginImmediate(db: Database.Database, path: string, busyTimeoutMs: number, interrupted: (() => boolean) | undefined): void {
  const until = Date.now() + busyTimeoutMs;
  const slice = (ms: number) => db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(ms))}`);
  if (interrupted) slice(Math.min(WAIT_SLICE_MS, busyTimeoutMs));
  try {
    for (;;) {
      try {
        db.exec('BEGIN IMMEDIATE');
        return;
      } catch (err) {
        if (!(err as { code?: string }).code?.startsWith('SQLITE_BUSY')) throw err;
      }
      throwIfInterrupted(interrupted);
      const left = until - Date.now();
      if (!interrupted || left <= 0) throw busyError(path, busyTimeoutMs);
      slice(Math.min(WAIT_SLICE_MS, left));
    }
  } finally {
    if (interrupted) slice(busyTimeoutMs);
  }
}

/** A commit that waited its bounded time for another sync's. */
export function busyError(path: string, timeoutMs: number): RunError {
  return new RunError(
    `${path} is busy: another sync has been writing it for more than ${waited(timeoutMs)}; try again when it is done`,
  );
}

/** The per-sync writer lock: a file beside the database, naming its holder. */
export async function syncLock(path: string, name: string): Promise<() => Promise<void>> {
  // Loaded by a writer only: a read (show --local) does not load the locks' files and node:fs/promises.
  const { acquireLock } = await import('../files/lock.js');
  try {
    return await acquireLock(`${path}.sync-${name}`);
  } catch (err) {
    if (err instanceof RunError) throw new RunError(`sync '${name}' is running already: ${err.message}`);
    throw err;
  }
}
