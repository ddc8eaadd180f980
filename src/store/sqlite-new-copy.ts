/**
 * The first sync of a copy that does not exist yet builds it whole in
 * PATH.partial and links it into place at commit, as `-o FILE` writes an
 * export: nobody can open a copy that is not there, so the file is written
 * without a journal on disk or a lock to share (half the writes of a copy in
 * WAL mode, which would write every page twice), and a killed run leaves no copy
 * behind, only its partial file, which the next first sync removes.
 *
 * Its tenders go straight into the tables as pages come, the full-text index
 * page by page, and the indexes of few values; the others, and the key, are
 * built once at the end (sorting once beats inserting at random places in each). A first sync has
 * nothing to compare with: every tender is stored, no change is recorded
 * (the baseline), and the last of a repeated id counts.
 *
 * If another sync made the copy meanwhile (two first syncs of one new copy),
 * or the file system has no hard links, the built tenders are applied to the
 * copy at the path as a run of the general kind.
 */

import Database from 'better-sqlite3';
import { RunError } from '../errors.js';
import { DEFAULT_CPV_PATHS, sameCpvPaths } from '../model/cpv.js';
import { acquireLock } from '../files/lock.js';
import { closeSync, fsyncSync, linkSync, openSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { interruptedBy, openCopy, throwIfInterrupted, writeTransaction } from './sqlite-connection.js';
import { STAGED_COLUMNS, STAGED_WIDTH, type StagedPage } from './sqlite-rows.js';
import { exec, insertRunRow } from './sqlite-run-rows.js';
import { runReceipt } from './run-receipt.js';
import { sqliteDialect } from './sql/dialect.js';
import { cpvStatements, saveCpvPaths, saveLastRun, saveSync } from './sql/writes.js';
import { openRun } from './sqlite-run.js';
import { FTS_INSERT_TRIGGER, migrate, TENDER_KEY } from './sqlite-schema.js';
import { indexName, TENDER_INDEXES } from './tender-indexes.js';
import type { RunCounts, RunFacts, RunReceipt } from './store.js';
import type { HostedRun, RunInit } from './sqlite-run-host.js';

/** Where the first sync of the copy at `path` builds it. */
function partialCopyPath(path: string): string {
  return `${path}.partial`;
}

/** Removes the partial copy of the copy at `path`, and the files SQLite may have made beside it. */
function removePartialCopy(path: string): void {
  const partial = partialCopyPath(path);
  for (const file of [partial, `${partial}-journal`, `${partial}-wal`, `${partial}-shm`]) rmSync(file, { force: true });
}

/**
 * The first sync of a new copy builds it whole: the lock of its partial file,
 * unless another sync is building it (undefined). A partial file beside a copy
 * that exists (not `unborn`) is a killed first sync's: removed.
 */
export async function partialCopyLock(path: string, unborn: boolean): Promise<(() => Promise<void>) | undefined> {
  const release = await acquireLock(partialCopyPath(path)).catch(elsewhere);
  if (!release || unborn) return release;
  removePartialCopy(path);
  await release();
  return undefined;
}

/** A lock another process holds: that one does the work, not this one. */
function elsewhere(err: unknown): undefined {
  if (err instanceof RunError) return undefined;
  throw err;
}

/** Rows a replay (see #replay) reads from the partial copy at a time. */
const REPLAY_ROWS = 500;

export class NewCopyRun implements HostedRun {
  readonly #init: RunInit;
  readonly #partial: string;
  readonly #db: Database.Database;
  readonly #started = new Date().toISOString();
  readonly #counts: RunCounts = { new: 0, changed: 0, gone: 0, unchanged: 0, seen: 0, repeated: 0, withoutId: 0 };
  readonly #inserts = new Map<number, Database.Statement>();
  readonly #next: Database.Statement;
  readonly #index: Database.Statement;
  #ended = false;

  /** The caller holds the partial file's lock: a partial file there now is a killed run's. */
  constructor(init: RunInit) {
    this.#init = init;
    this.#partial = partialCopyPath(init.path);
    this.#remove();
    this.#db = new Database(this.#partial);
    try {
      // Pages of 16 kB: a tender's row is about 1 kB, and a copy in larger pages is written and
      // indexed with a tenth less work, its local queries as fast (measured).
      this.#db.exec('PRAGMA page_size = 16384');
      // Private until linked: its journal in memory (a new file's pages have no old content to keep,
      // and a failed build is removed, not undone), no syncing until it is whole, one lock held
      // from the first write to the end.
      this.#db.exec('PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -16384');
      migrate(this.#db, 0);
      this.#db.exec('BEGIN');
      for (const sql of [TENDER_KEY, ...BUILT_AT_END]) this.#db.exec(`DROP INDEX ${indexName(sql)}`);
      this.#db.exec('DROP TRIGGER tenders_fts_insert');
      this.#next = this.#db.prepare('SELECT coalesce(max(seq), 0) + 1 FROM tenders').pluck();
      this.#index = this.#db.prepare('INSERT INTO tenders_fts (rowid, title, buyer_name) SELECT seq, title, buyer_name FROM tenders WHERE seq >= ?');
    } catch (err) {
      this.#remove();
      throw err;
    }
  }

  /** A new copy holds no tender. */
  known(): string[] {
    return [];
  }

  stage(page: StagedPage): void {
    this.#counts.seen += page.seen;
    this.#counts.withoutId += page.withoutId;
    const from = this.#next.get() as number;
    const width = STAGED_WIDTH + 1;
    const rows = page.values.length / STAGED_WIDTH;
    for (let at = 0; at < rows; at += INSERT_ROWS) {
      const n = Math.min(INSERT_ROWS, rows - at);
      const values: unknown[] = [];
      for (let i = at * STAGED_WIDTH; i < (at + n) * STAGED_WIDTH; i += STAGED_WIDTH) {
        for (let j = i; j < i + STAGED_WIDTH; j++) values.push(page.values[j]);
        values.push(this.#started);
      }
      this.#insert(n, width).run(values);
    }
    // A repeated id is a row of its own until the key is built (#makeKey).
    this.#index.run(from);
  }

  commit(facts: RunFacts): RunReceipt {
    try {
      if (!facts.complete) return this.#receiptOnly(facts);
      // Interrupted before or while it was built: the copy is not put in place (and the partial file is removed).
      const interrupted = interruptedBy(this.#init.interrupt);
      throwIfInterrupted(interrupted);
      const receipt = this.#build(facts);
      throwIfInterrupted(interrupted);
      if (this.#link()) return receipt;
      return this.#replay(facts);
    } finally {
      this.abort();
    }
  }

  abort(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#remove();
  }

  /** A page's rows in one statement (with the first_seen of every tender). */
  #insert(rows: number, width: number): Database.Statement {
    let insert = this.#inserts.get(rows);
    if (!insert) {
      const row = `(${Array.from({ length: width }, () => '?').join(', ')})`;
      insert = this.#db.prepare(
        `INSERT INTO tenders (${STAGED_COLUMNS}, first_seen) VALUES ${Array.from({ length: rows }, () => row).join(', ')}`,
      );
      this.#inserts.set(rows, insert);
    }
    return insert;
  }

  /** Finishes the partial copy: indexes, membership, the sync and its receipt; then it is closed in WAL mode, on disk. */
  #build(facts: RunFacts): RunReceipt {
    const db = this.#db;
    const { sync } = this.#init;
    const now = new Date().toISOString();
    // SQLite sorts an index in memory up to the page cache's size: a small cache for the builds keeps a large
    // copy's peak near a small one's (sync RSS 200 000 / 50 000: 1.33 -> 1.22), its sorts merged from a few runs.
    db.exec('PRAGMA cache_size = -4096');
    this.#counts.new = this.#makeKey();
    for (const sql of BUILT_AT_END) db.exec(sql);
    db.exec(FTS_INSERT_TRIGGER);
    // One segment: a full-text query reads one b-tree, not one per page.
    db.exec("INSERT INTO tenders_fts (tenders_fts) VALUES ('optimize')");
    db.prepare('INSERT INTO sync_tenders (sync, id, first_seen, last_seen) SELECT ?, id, ?, ? FROM tenders ORDER BY id').run(sync.name, now, now);
    for (const s of cpvStatements(sqliteDialect)) exec(db, s);
    const receipt = this.#receipt(facts, now, true);
    receipt.run = insertRunRow(db, receipt);
    exec(db, saveSync(sqliteDialect, sync, receipt.run, now));
    // Its tenders' codes were read with the run's paths: a new copy records them (the default it need not).
    if (!sameCpvPaths(this.#init.cpvPaths, DEFAULT_CPV_PATHS)) exec(db, saveCpvPaths(sqliteDialect, this.#init.cpvPaths));
    db.exec('COMMIT');
    // Readers of the copy, once it is in place, are never blocked by a sync.
    db.exec('PRAGMA locking_mode = NORMAL');
    db.exec('PRAGMA journal_mode = WAL');
    db.close();
    syncToDisk(this.#partial);
    return receipt;
  }

  /**
   * Puts the finished copy in place; false when it cannot be: a copy is there now (made by
   * another sync meanwhile), or the file system has no hard links (FAT, some network and FUSE
   * file systems), and the run is then applied to a copy there as any run is.
   */
  #link(): boolean {
    try {
      linkSync(this.#partial, this.#init.path);
    } catch {
      return false;
    }
    // The new name survives a crash once its directory is on disk too, where the file system can sync a directory.
    try {
      syncToDisk(dirname(this.#init.path));
    } catch {
      // The copy is in place either way.
    }
    return true;
  }

  /**
   * Another sync made the copy while this one built its own: this run's
   * tenders are applied to that copy as any run is (compared, changes
   * recorded, in one transaction), read back from the partial copy in the
   * walk's order. The receipt's counts are the walk's.
   */
  #replay(facts: RunFacts): RunReceipt {
    const { db, run } = openRun(this.#init, this.#counts);
    try {
      const built = new Database(this.#partial, { readonly: true });
      try {
        const read = built.prepare(`SELECT ${STAGED_COLUMNS}, seq FROM tenders WHERE seq > ? ORDER BY seq LIMIT ${REPLAY_ROWS}`).raw();
        for (let after = 0; ; ) {
          const rows = read.all(after) as unknown[][];
          if (rows.length === 0) break;
          run.stage({ values: rows.flatMap((row) => row.slice(0, STAGED_WIDTH)), seen: 0, withoutId: 0 });
          after = rows[rows.length - 1]![STAGED_WIDTH] as number;
        }
      } finally {
        built.close();
      }
      return run.commit(facts);
    } finally {
      db.close();
    }
  }

  /** An incomplete first run: a copy with its receipt alone, as any incomplete run leaves. */
  #receiptOnly(facts: RunFacts): RunReceipt {
    const init = this.#init;
    this.#countRepeats();
    this.abort();
    const db = openCopy(init.path, 'write', init.busyTimeoutMs);
    try {
      return writeTransaction(
        db,
        init.path,
        init.busyTimeoutMs,
        () => {
          const receipt = this.#receipt(facts, new Date().toISOString(), false);
          receipt.run = insertRunRow(db, receipt);
          exec(db, saveLastRun(sqliteDialect, init.sync.name, receipt.run));
          return receipt;
        },
        interruptedBy(init.interrupt),
      );
    } finally {
      db.close();
    }
  }

  /**
   * The key of tenders, built once the rows are in; returns how many tenders the copy holds. A
   * repeat fails the key (that statement undone) and only then are the earlier rows of each
   * repeated id removed: the last counts, as in any run.
   */
  #makeKey(): number {
    try {
      this.#db.exec(TENDER_KEY);
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_CONSTRAINT_UNIQUE') throw err;
      this.#db.exec('DELETE FROM tenders WHERE seq NOT IN (SELECT max(seq) FROM tenders GROUP BY id)');
      this.#db.exec(TENDER_KEY);
    }
    return this.#countRepeats();
  }

  /** Counts the repeated ids (the walk's tenders with an id, less the distinct ones); returns the distinct. */
  #countRepeats(): number {
    const distinct = this.#db.prepare('SELECT count(DISTINCT id) FROM tenders').pluck().get() as number;
    this.#counts.repeated = this.#counts.seen - this.#counts.withoutId - distinct;
    return distinct;
  }

  #receipt(facts: RunFacts, ended: string, complete: boolean): RunReceipt {
    const { sync, mode } = this.#init;
    return runReceipt({ sync, mode, baseline: true, startedAt: this.#started, counts: this.#counts }, facts, ended, complete);
  }

  #remove(): void {
    if (this.#db?.open) this.#db.close();
    removePartialCopy(this.#init.path);
  }
}

/**
 * The indexes built once the rows are in. One of a few values (a status) takes a row where
 * its last one went, cheaply: it is kept as the rows come.
 */
const BUILT_AT_END = TENDER_INDEXES.filter((sql) => indexName(sql) !== 'tenders_status');

/** Rows one INSERT takes at most (SQLite binds up to 32 766 values). */
const INSERT_ROWS = 200;

/** Flushes a file, or a directory's names, to disk. */
function syncToDisk(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
