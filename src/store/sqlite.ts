/**
 * The SQLite engine of the store: one file (WAL mode, so readers are never
 * blocked by a sync), the schema of docs/local-copy-schema.md.
 */

import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { DEFAULT_CPV_PATHS } from '../model/cpv.js';
import { parseJson } from '../model/json-parse.js';
import type { LocalSelection } from '../model/local-selection.js';
import { checkDefinition, checkSyncName, ftsError, ftsWords } from './rules.js';
import { sqliteDialect, statement, type Statement } from './sql/dialect.js';
import { changeRecord, changesStatement, countTenders, forgetStatements, readCopyCpvPaths, readCursorSecret, readGeneration, readStatus, readSyncs, readTender, searchChanges, syncNames } from './sql/reads.js';
import { afterCondition, fromWhere, hasWords, orderBy, orderOf } from './sql/selection.js';
import { emptyCopy, openCopy, syncLock, writeTransaction } from './sqlite-connection.js';
import { checkDatabaseFile } from './sqlite-file.js';
import type { SqliteRunClient } from './sqlite-run-client.js';
import { SCHEMA_VERSION } from './sqlite-schema.js';
import { selectPlans } from './sqlite-select.js';
import {
  DEFAULT_BUSY_TIMEOUT_MS,
  type ChangeFilter,
  type ChangePageOptions,
  type ChangeRecord,
  type ChangeSearch,
  type CountOptions,
  type KeyedChange,
  type LocalCounts,
  type OpenOptions,
  type RunOptions,
  type SelectOptions,
  type Store,
  type StoreStatus,
  type StoredTender,
  type SyncInfo,
  type SyncRun,
} from './store.js';

/** How much of a copy a local query maps into memory (the rest is read as usual). */
const READ_MMAP_BYTES = 1 << 30;

/** Tenders (or changes) handed on at a time by select and changes. */
const BATCH = 256;

export async function openSqliteStore(path: string, options: OpenOptions): Promise<Store> {
  const born = checkDatabaseFile(path, options.mode);
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  // A copy that does not exist yet is made by its first sync, whole (sqlite-new-copy.ts): until
  // then the store answers from an empty schema in memory, and nothing is written to disk.
  if (!born) return new SqliteStore(undefined, path, busyTimeoutMs, options.signal);
  const db = options.mode === 'read' ? readConnection(path, busyTimeoutMs, options.definitionsOnly, !options.unmapped) : openCopy(path, 'write', busyTimeoutMs);
  return new SqliteStore(db, path, busyTimeoutMs, options.signal);
}

/** A connection that reads the copy at `path`, and only reads. */
function readConnection(path: string, busyTimeoutMs: number, olderToo?: boolean, mapped = true): Database.Database {
  const db = openCopy(path, 'read', busyTimeoutMs, olderToo);
  // A query reads the copy where its matches lie, in a fresh process each time: mapped, those
  // pages are read from the OS cache without a system call each (a first full-text page over
  // 200 000 tenders in half the time). A sync does not map: its memory would grow with the copy.
  // A download maps nothing: its reads pass over the whole copy once, and mapped they would all stay in its memory.
  if (mapped) db.exec(`PRAGMA mmap_size = ${READ_MMAP_BYTES}`);
  // A reader cannot write, whatever it is asked (tenders serve answers strangers' requests from it).
  db.exec('PRAGMA query_only = ON');
  return db;
}

class SqliteStore implements Store {
  #run: SqliteRunClient | undefined;
  #db: Database.Database | undefined;
  /** Connections of snapshots that ended, for the next snapshot that finds #db in use. */
  readonly #spare: Database.Database[] = [];
  /** No copy at `path` yet: nothing is stored, and a sync makes the copy. */
  private unborn: boolean;

  constructor(
    db: Database.Database | undefined,
    private readonly path: string,
    private readonly busyTimeoutMs: number,
    /** Stops a run's commit waiting for another writer (OpenOptions.signal). */
    private readonly signal: AbortSignal | undefined,
    /** A snapshot (snapshot()): close() ends its read transaction this way instead of closing the connection. */
    private readonly end?: () => void,
  ) {
    this.#db = db;
    this.unborn = db === undefined;
  }

  async snapshot(): Promise<Store> {
    if (this.unborn) return new SqliteStore(undefined, this.path, this.busyTimeoutMs, this.signal);
    // Every read of the store joins a transaction open on its connection (#begin): while another
    // snapshot holds it, this one reads on a connection of its own, kept for the next such one.
    const own = !this.db.inTransaction;
    const db = own ? this.db : (this.#spare.pop() ?? readConnection(this.path, this.busyTimeoutMs));
    db.exec('BEGIN');
    return new SqliteStore(db, this.path, this.busyTimeoutMs, this.signal, () => {
      if (db.inTransaction) db.exec('COMMIT');
      if (!own) {
        if (this.#db?.open) this.#spare.push(db);
        else db.close();
      }
    });
  }

  /** The copy; before it exists, an empty one in memory, made when first asked (a first sync asks nothing of it). */
  private get db(): Database.Database {
    return (this.#db ??= emptyCopy());
  }

  async beginRun(options: RunOptions): Promise<SyncRun> {
    const { sync } = options;
    checkSyncName(sync.name);
    if (this.end) throw new Error('a snapshot only reads');
    if (this.#run) throw new Error('one sync run at a time per store');
    const saved = await this.getSync(sync.name);
    checkDefinition(sync, saved, options.reset);
    // The writing side, loaded by a sync only: a read of the copy does not load it.
    const [{ partialCopyLock }, { SqliteRunClient }] = await Promise.all([import('./sqlite-new-copy.js'), import('./sqlite-run-client.js')]);
    const release = await syncLock(this.path, sync.name);
    let building: (() => Promise<void>) | undefined;
    try {
      building = await partialCopyLock(this.path, this.unborn);
      const init = {
        path: this.path,
        busyTimeoutMs: this.busyTimeoutMs,
        sync,
        mode: options.mode,
        baseline: saved === undefined,
        cpvPaths: options.cpvPaths ?? DEFAULT_CPV_PATHS,
        newCopy: building !== undefined,
      };
      const run = new SqliteRunClient(init, async () => {
        this.#run = undefined;
        await building?.();
        await release();
        if (this.unborn && existsSync(this.path)) this.#born();
      }, this.signal);
      this.#run = run;
      return run;
    } catch (err) {
      await building?.();
      await release();
      throw err;
    }
  }

  async *select(selection: LocalSelection, options: SelectOptions = {}): AsyncGenerator<Record<string, unknown>[]> {
    const order = orderOf(selection);
    const plans = this.#withFts(selection, () => selectPlans(this.db, selection));
    // A read of more than a batch (a download, an export) walks the order's index from batch to batch:
    // each batch then costs its own rows, where finding and sorting every match again for each made a
    // whole read quadratic (200 000 tenders: 14 minutes). Full-text words keep their plan.
    if ((options.limit ?? Infinity) > BATCH && !hasWords(selection.words)) plans.words = 'probe';
    let remaining = options.limit ?? Infinity;
    let after: [unknown, string] | undefined;
    if (options.after !== undefined) after = this.#sortKey(order.column, options.after);
    if (options.from !== undefined) after = [options.from.key, options.from.id];
    // The order is found on row numbers alone, then only the page's documents are read: a full-text
    // match of many tenders sorts small rows, not their documents.
    const page = (keyset: boolean) =>
      statement(sqliteDialect, (sql) => {
        const base = fromWhere(selection, true, sql, plans);
        return `SELECT t.${order.column}, t.id, t.doc FROM tenders t WHERE t.seq IN (SELECT t.seq ${base}${keyset ? ` AND ${afterCondition(order, '(?, ?)')}` : ''} ${orderBy(order)} LIMIT ?) ${orderBy(order)}`;
      });
    const [first, next] = [page(false), page(true)];
    const [readFirst, readNext] = [this.db.prepare(first.sql).raw(), this.db.prepare(next.sql).raw()];
    const end = this.#begin();
    try {
      while (remaining > 0) {
        const n = Math.min(BATCH, remaining);
        const rows = this.#withFts(selection, () =>
          (after ? readNext.all(...next.params, ...after, n) : readFirst.all(...first.params, n)) as [unknown, string, string][],
        );
        if (rows.length === 0) return;
        remaining -= rows.length;
        const last = rows[rows.length - 1]!;
        after = [last[0], last[1]];
        yield rows.map((row) => parseJson(row[2]) as Record<string, unknown>);
        if (rows.length < n) return;
      }
    } finally {
      end();
    }
  }

  async count(selection: LocalSelection, byPath?: string, options?: CountOptions): Promise<LocalCounts> {
    return countTenders((s) => this.#read(s, selection), sqliteDialect, selection, byPath, options);
  }

  async *changes(filter: ChangeFilter = {}): AsyncGenerator<ChangeRecord[]> {
    const { sql, params } = changesStatement(sqliteDialect, filter, BATCH);
    const read = this.db.prepare(sql).raw();
    const end = this.#begin();
    try {
      let after: unknown[] = [0, '', 0];
      for (;;) {
        const rows = read.all(...after, ...params.slice(3)) as unknown[][];
        if (rows.length === 0) return;
        yield rows.map(changeRecord);
        const last = rows[rows.length - 1]!;
        after = [last[0], last[2], last[8]];
        if (rows.length < BATCH) return;
      }
    } finally {
      end();
    }
  }

  async searchChanges(search: ChangeSearch, options?: ChangePageOptions): Promise<{ changes: KeyedChange[]; total?: number }> {
    if (this.unborn) return { changes: [], total: options?.count ? 0 : undefined };
    const end = this.#begin();
    try {
      return await searchChanges((s) => this.#read(s), sqliteDialect, search, options);
    } finally {
      end();
    }
  }

  async cpvPaths(): Promise<readonly string[]> {
    return this.unborn ? DEFAULT_CPV_PATHS : readCopyCpvPaths((s) => this.#read(s));
  }

  async cursorSecret(): Promise<string | undefined> {
    return this.unborn ? undefined : readCursorSecret((s) => this.#read(s));
  }

  async generation(): Promise<string> {
    return this.unborn ? '' : readGeneration((s) => this.#read(s));
  }

  async getTender(id: string): Promise<StoredTender | undefined> {
    return this.unborn ? undefined : readTender((s) => this.#read(s), sqliteDialect, id);
  }

  async listSyncs(): Promise<SyncInfo[]> {
    return this.unborn ? [] : readSyncs((s) => this.#read(s), sqliteDialect);
  }

  async getSync(name: string): Promise<SyncInfo | undefined> {
    return this.unborn ? undefined : (await readSyncs((s) => this.#read(s), sqliteDialect, name))[0];
  }

  async forget(name: string): Promise<{ tenders: number }> {
    checkSyncName(name);
    if (this.end) throw new Error('a snapshot only reads');
    if (!(await this.getSync(name))) {
      const known = await syncNames((s) => this.#read(s));
      throw new UsageError(`no sync named '${name}' in ${this.path}${known.length ? ` (there are: ${known.join(', ')})` : ''}`);
    }
    const release = await syncLock(this.path, name);
    try {
      return this.#write(() => {
        let tenders = 0;
        for (const s of forgetStatements(sqliteDialect, name, new Date().toISOString())) {
          const { changes } = this.db.prepare(s.sql).run(...s.params);
          if (s.counted) tenders = changes;
        }
        return { tenders };
      });
    } finally {
      await release();
    }
  }

  async status(sync?: string): Promise<StoreStatus> {
    return readStatus((s) => this.#read(s), sqliteDialect, this.path, SCHEMA_VERSION, sync);
  }

  async close(): Promise<void> {
    if (this.end) return this.end();
    await this.#run?.abort();
    for (const db of this.#spare.splice(0)) db.close();
    if (this.#db?.open) this.#db.close();
  }

  /** A sync made the copy: from now on the store reads and writes it. */
  #born(): void {
    this.#db?.close();
    this.#db = openCopy(this.path, 'write', this.busyTimeoutMs);
    this.unborn = false;
  }

  #write<T>(work: () => T): T {
    return writeTransaction(this.db, this.path, this.busyTimeoutMs, work);
  }

  /** A statement's rows (arrays); an FTS5 refusal of the selection's words is a UsageError with the rule. */
  async #read(s: Statement, selection?: LocalSelection): Promise<unknown[][]> {
    return this.#withFts(selection, () => this.db.prepare(s.sql).raw().all(...s.params) as unknown[][]);
  }

  /** One read transaction, ended by the function returned: every batch reads the same snapshot, whatever a sync commits meanwhile. */
  #begin(): () => void {
    const own = !this.db.inTransaction;
    if (own) this.db.exec('BEGIN');
    return () => {
      if (own && this.db.inTransaction) this.db.exec('COMMIT');
    };
  }

  /** Runs a query; an FTS5 refusal of the selection's words is a UsageError with the rule. */
  #withFts<T>(selection: LocalSelection | undefined, query: () => T): T {
    try {
      return query();
    } catch (err) {
      const message = (err as Error).message;
      const words = selection && ftsWords(selection);
      if (words !== undefined && /fts5|no such column|unterminated string|unknown special query|expected integer/i.test(message)) {
        throw ftsError(words, message.replace(/^fts5: /, ''));
      }
      throw err;
    }
  }

  /** The sort value and id of the tender `id`, where a next page starts after it. */
  #sortKey(column: string, id: string): [unknown, string] {
    const row = this.db.prepare(`SELECT ${column} FROM tenders WHERE id = ?`).raw().get(id) as [unknown] | undefined;
    if (!row || row[0] === null) throw new UsageError(`no tender '${id}' in the local copy to continue after (in this order)`);
    return [row[0], id];
  }
}
