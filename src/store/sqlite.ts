/**
 * The SQLite engine of the store: one file (WAL mode, so readers are never
 * blocked by a sync), the schema of docs/local-copy-schema.md.
 */

import type Database from 'better-sqlite3';
import { parseJson } from '../model/json-parse.js';
import { RunError, UsageError } from '../errors.js';
import { queryKey } from '../model/query-key.js';
import type { JsonObject } from '../model/exact-json.js';
import type { LocalSelection } from '../model/local-selection.js';
import { existsSync } from 'node:fs';
import { acquireLock } from '../files/lock.js';
import { snake, sortCounts, stringColumn, timestamp } from './columns.js';
import { checkDatabaseFile } from './sqlite-file.js';
import { openCopy, writeTransaction } from './sqlite-connection.js';
import { SCHEMA_VERSION } from './sqlite-schema.js';
import { newCopySchema, partialCopyPath, removePartialCopy } from './sqlite-new-copy.js';
import { SqliteRunClient } from './sqlite-run-client.js';
import { afterCondition, fromWhere, orderBy, orderOf, PROBE_DENSITY, PROBE_FROM, type FtsPlan } from './sqlite-select.js';
import { checkSyncName, definitionMismatch, dotPathKeys, ftsError } from './rules.js';
import {
  DEFAULT_BUSY_TIMEOUT_MS,
  type ChangeFilter,
  type ChangeRecord,
  type LocalCounts,
  type OpenOptions,
  type RunOptions,
  type RunReceipt,
  type SelectOptions,
  type Store,
  type StoreStatus,
  type SyncInfo,
  type SyncRun,
} from './store.js';

/** How much of a copy a local query maps into memory (the rest is read as usual). */
const READ_MMAP_BYTES = 1 << 30;

/** Tenders (or changes) handed on at a time by select and changes. */
const BATCH = 256;

/**
 * A change another sync recorded counts for this one (?) when this one held the tender then:
 * from its first run that matched it until it stopped matching it (not before it existed).
 */
const HELD_THEN = 'EXISTS (SELECT 1 FROM sync_tenders m WHERE m.sync = ? AND m.id = c.id AND m.first_seen <= c.at AND (m.gone_at IS NULL OR c.at <= m.gone_at))';

export async function openSqliteStore(path: string, options: OpenOptions): Promise<Store> {
  const born = checkDatabaseFile(path, options.mode);
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  // A copy that does not exist yet is made by its first sync, whole (sqlite-new-copy.ts): until
  // then the store answers from an empty schema in memory, and nothing is written to disk.
  if (!born) return new SqliteStore(undefined, path, busyTimeoutMs, options.signal);
  const db = openCopy(path, options.mode, busyTimeoutMs, options.definitionsOnly);
  // A query reads the copy where its matches lie, in a fresh process each time: mapped, those
  // pages are read from the OS cache without a system call each (a first full-text page over
  // 200 000 tenders in half the time). A sync does not map: its memory would grow with the copy.
  if (options.mode === 'read') {
    db.exec(`PRAGMA mmap_size = ${READ_MMAP_BYTES}`);
    // A reader cannot write, whatever it is asked (tenders serve answers strangers' requests from it).
    db.exec('PRAGMA query_only = ON');
  }
  return new SqliteStore(db, path, busyTimeoutMs, options.signal);
}

interface SyncRow {
  name: string;
  query: string;
  service: string;
  created: string;
  last_run: number | null;
  last_complete: string | null;
}

interface RunRow {
  run: number;
  sync: string;
  query: string;
  service: string;
  mode: 'full' | 'new-only';
  baseline: number;
  started: string;
  ended: string;
  complete: number;
  pages: number;
  requests: number;
  new: number;
  changed: number;
  gone: number;
  unchanged: number;
  seen: number;
  repeated: number;
  without_id: number;
  error: string | null;
}

class SqliteStore implements Store {
  #run: SqliteRunClient | undefined;
  #db: Database.Database | undefined;
  /** No copy at `path` yet: nothing is stored, and a sync makes the copy. */
  private unborn: boolean;

  constructor(
    db: Database.Database | undefined,
    private readonly path: string,
    private readonly busyTimeoutMs: number,
    /** Stops a run's commit waiting for another writer (OpenOptions.signal). */
    private readonly signal: AbortSignal | undefined,
  ) {
    this.#db = db;
    this.unborn = db === undefined;
  }

  /** The copy; before it exists, an empty one in memory, made when first asked (a first sync asks nothing of it). */
  private get db(): Database.Database {
    return (this.#db ??= newCopySchema());
  }

  async beginRun(options: RunOptions): Promise<SyncRun> {
    const { sync } = options;
    checkSyncName(sync.name);
    if (this.#run) throw new Error('one sync run at a time per store');
    const saved = this.#syncRow(sync.name);
    if (saved && !options.reset) {
      if (queryKey(parseJson(saved.query)) !== queryKey(sync.query)) {
        throw definitionMismatch(sync.name, 'query', saved.query, JSON.stringify(sync.query));
      }
      if (saved.service !== sync.service) throw definitionMismatch(sync.name, 'service', saved.service, sync.service);
    }
    const release = await this.#lock(sync.name);
    let building: (() => Promise<void>) | undefined;
    try {
      building = await this.#partialCopy();
      const init = { path: this.path, busyTimeoutMs: this.busyTimeoutMs, sync, mode: options.mode, baseline: saved === undefined, newCopy: building !== undefined };
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
    const base = fromWhere(selection, true, this.#ftsPlan(selection));
    let remaining = options.limit ?? Infinity;
    let after: [unknown, string] | undefined;
    if (options.after !== undefined) after = this.#sortKey(order.column, options.after);
    if (options.from !== undefined) after = [options.from.key, options.from.id];
    // The order is found on row numbers alone, then only the page's documents are read: a full-text
    // match of many tenders sorts small rows, not their documents.
    const sql = (keyset: boolean) =>
      `SELECT t.${order.column}, t.id, t.doc FROM tenders t WHERE t.seq IN (SELECT t.seq ${base.sql}${
        keyset ? ` AND ${afterCondition(order)}` : ''
      } ${orderBy(order)} LIMIT ?) ${orderBy(order)}`;
    const first = this.db.prepare(sql(false)).raw();
    const next = this.db.prepare(sql(true)).raw();
    // One read transaction: every batch reads the same snapshot, whatever a sync commits meanwhile.
    const own = !this.db.inTransaction;
    if (own) this.db.exec('BEGIN');
    try {
      while (remaining > 0) {
        const n = Math.min(BATCH, remaining);
        const rows = this.#withFts(selection, () =>
          (after ? next.all(...base.params, ...after, n) : first.all(...base.params, n)) as [unknown, string, string][],
        );
        if (rows.length === 0) return;
        remaining -= rows.length;
        const last = rows[rows.length - 1]!;
        after = [last[0], last[1]];
        yield rows.map((row) => parseJson(row[2]) as Record<string, unknown>);
        if (rows.length < n) return;
      }
    } finally {
      if (own && this.db.inTransaction) this.db.exec('COMMIT');
    }
  }

  async count(selection: LocalSelection, byPath?: string): Promise<LocalCounts> {
    const base = fromWhere(selection, false);
    const total = this.#withFts(selection, () => (this.db.prepare(`SELECT count(*) ${base.sql}`).raw().get(...base.params) as [number])[0]);
    if (byPath === undefined) return { total, rows: [] };
    const path = jsonPath(byPath);
    const column = stringColumn(byPath);
    const group = (value: string, where: string, params: unknown[]) =>
      this.#withFts(
        selection,
        () => this.db.prepare(`SELECT ${value} AS v, count(*) ${base.sql}${where} GROUP BY v`).raw().all(...params) as [string | null, number][],
      );
    // A string field's typed column holds its value (read from an index, not from the JSON); the
    // tenders whose field is no string (or absent) are counted from their documents.
    const rows = column
      ? [
          ...group(`json_quote(t.${snake(column)})`, ` AND t.${snake(column)} IS NOT NULL`, base.params),
          ...group('t.doc -> ?', ` AND t.${snake(column)} IS NULL`, [path, ...base.params]),
        ]
      : group('t.doc -> ?', '', [path, ...base.params]);
    if (rows.every(([v]) => v === null) && !this.#anyHas(path) && this.#anyTender()) {
      throw new UsageError(`no stored tender has a field '${byPath}': ${this.#fieldHint()}`);
    }
    sortCounts(rows);
    return { total, rows: rows.map(([v, n]) => ({ value: v === null ? undefined : parseJson(v), count: n })) };
  }

  async *changes(filter: ChangeFilter = {}): AsyncGenerator<ChangeRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.sync !== undefined) {
      where.push(`(c.sync = ? OR (c.kind = 'changed' AND ${HELD_THEN}))`);
      params.push(filter.sync, filter.sync);
    }
    if (filter.since !== undefined) {
      where.push('c.at >= ?');
      params.push(timestamp(filter.since));
    }
    if (filter.id !== undefined) {
      where.push('c.id = ?');
      params.push(filter.id);
    }
    const cond = where.length ? `AND ${where.join(' AND ')}` : '';
    const read = this.db
      .prepare(
        `SELECT c.seq, c.run, c.sync, c.id, c.kind, c.field, c.old, c.new, c.at FROM changes c
         WHERE (c.run, c.id, c.seq) > (?, ?, ?) ${cond} ORDER BY c.run, c.id, c.seq LIMIT ${BATCH}`,
      )
      .raw();
    const own = !this.db.inTransaction;
    if (own) this.db.exec('BEGIN');
    try {
      let after: [number, string, number] = [0, '', 0];
      for (;;) {
        const rows = read.all(...after, ...params) as [number, number, string, string, ChangeRecord['kind'], string | null, string | null, string | null, string][];
        if (rows.length === 0) return;
        yield rows.map(([, run, sync, id, kind, field, old, now, at]) => ({
          run,
          sync,
          id,
          kind,
          field,
          old: old === null ? undefined : parseJson(old),
          new: now === null ? undefined : parseJson(now),
          at,
        }));
        const last = rows[rows.length - 1]!;
        after = [last[1], last[3], last[0]];
        if (rows.length < BATCH) return;
      }
    } finally {
      if (own && this.db.inTransaction) this.db.exec('COMMIT');
    }
  }

  async listSyncs(): Promise<SyncInfo[]> {
    if (this.unborn) return [];
    const rows = this.db.prepare('SELECT * FROM syncs ORDER BY name').all() as SyncRow[];
    return rows.map((row) => this.#syncInfo(row));
  }

  async getSync(name: string): Promise<SyncInfo | undefined> {
    const row = this.#syncRow(name);
    return row && this.#syncInfo(row);
  }

  async forget(name: string): Promise<{ tenders: number }> {
    checkSyncName(name);
    if (!this.#syncRow(name)) {
      const known = (this.db.prepare('SELECT name FROM syncs ORDER BY name').raw().all() as [string][]).map(([n]) => n);
      throw new UsageError(`no sync named '${name}' in ${this.path}${known.length ? ` (there are: ${known.join(', ')})` : ''}`);
    }
    const release = await this.#lock(name);
    try {
      return this.#write(() => {
        const now = new Date().toISOString();
        const others = 'SELECT 1 FROM sync_tenders o WHERE o.id = tenders.id AND o.sync <> ?';
        const mine = 'SELECT id FROM sync_tenders WHERE sync = ?';
        const removed = this.db.prepare(`DELETE FROM tenders WHERE id IN (${mine}) AND NOT EXISTS (${others})`).run(name, name).changes;
        // Tenders other syncs keep only as gone: no sync matches them now.
        this.db
          .prepare(
            `UPDATE tenders SET gone_at = ? WHERE gone_at IS NULL AND id IN (${mine})
             AND NOT EXISTS (SELECT 1 FROM sync_tenders o WHERE o.id = tenders.id AND o.sync <> ? AND o.gone_at IS NULL)`,
          )
          .run(now, name, name);
        for (const table of ['sync_tenders', 'changes', 'runs']) this.db.prepare(`DELETE FROM ${table} WHERE sync = ?`).run(name);
        this.db.prepare('DELETE FROM syncs WHERE name = ?').run(name);
        return { tenders: removed };
      });
    } finally {
      await release();
    }
  }

  async status(sync?: string): Promise<StoreStatus> {
    const one = (sql: string, ...params: unknown[]) => (this.db.prepare(sql).raw().get(...params) as [unknown])[0];
    return {
      location: this.path,
      schemaVersion: SCHEMA_VERSION,
      syncs: one('SELECT count(*) FROM syncs') as number,
      tenders: one('SELECT count(*) FROM tenders WHERE gone_at IS NULL') as number,
      lastComplete: (sync === undefined
        ? one('SELECT max(last_complete) FROM syncs')
        : one('SELECT last_complete FROM syncs WHERE name = ?', sync) ?? null) as string | null,
    };
  }

  async close(): Promise<void> {
    await this.#run?.abort();
    if (this.#db?.open) this.#db.close();
  }

  /**
   * The first sync of a new copy builds it whole (sqlite-new-copy.ts): the
   * lock of its partial file, unless another sync is building it. A partial
   * file beside a copy that exists is a killed first sync's: removed.
   */
  async #partialCopy(): Promise<(() => Promise<void>) | undefined> {
    const release = await acquireLock(partialCopyPath(this.path)).catch(elsewhere);
    if (!release || this.unborn) return release;
    removePartialCopy(this.path);
    await release();
    return undefined;
  }

  /** A sync made the copy: from now on the store reads and writes it. */
  #born(): void {
    this.#db?.close();
    this.#db = openCopy(this.path, 'write', this.busyTimeoutMs);
    this.unborn = false;
  }

  /** The per-sync writer lock: a file beside the database, naming its holder. */
  async #lock(name: string): Promise<() => Promise<void>> {
    try {
      return await acquireLock(`${this.path}.sync-${name}`);
    } catch (err) {
      if (err instanceof RunError) throw new RunError(`sync '${name}' is running already: ${err.message}`);
      throw err;
    }
  }

  #write<T>(work: () => T): T {
    return writeTransaction(this.db, this.path, this.busyTimeoutMs, work);
  }

  /** Runs a query; an FTS5 refusal of the selection's words is a UsageError with the rule. */
  #withFts<T>(selection: LocalSelection, query: () => T): T {
    try {
      return query();
    } catch (err) {
      const message = (err as Error).message;
      if (selection.words !== undefined && /fts5|no such column|unterminated string|unknown special query|expected integer/i.test(message)) {
        throw ftsError(selection.words, message.replace(/^fts5: /, ''));
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

  /** Many matches: walk the order and probe; few: find them and sort (see FtsPlan). */
  #ftsPlan(selection: LocalSelection): FtsPlan {
    if (selection.words === undefined || selection.words.trim() === '') return 'matches';
    // Row numbers only grow: the largest is the size of the table, read from the key, at once.
    const [rows] = this.db.prepare('SELECT coalesce(max(seq), 0) FROM tenders').raw().get() as [number];
    const enough = Math.max(PROBE_FROM, Math.ceil(rows / PROBE_DENSITY));
    const some = this.#withFts(selection, () =>
      this.db
        .prepare(`SELECT count(*) FROM (SELECT rowid FROM tenders_fts WHERE tenders_fts MATCH ? LIMIT ${enough})`)
        .raw()
        .get(selection.words),
    ) as [number];
    return some[0] >= enough ? 'probe' : 'matches';
  }

  #anyTender(): boolean {
    return this.db.prepare('SELECT 1 FROM tenders LIMIT 1').raw().get() !== undefined;
  }

  #anyHas(path: string): boolean {
    return this.db.prepare('SELECT 1 FROM tenders WHERE doc -> ? IS NOT NULL LIMIT 1').raw().get(path) !== undefined;
  }

  /** The field paths of one stored tender, as examples of what --by takes. */
  #fieldHint(): string {
    const row = this.db.prepare('SELECT doc FROM tenders WHERE gone_at IS NULL LIMIT 1').raw().get() as [string] | undefined;
    const paths: string[] = [];
    const walk = (value: unknown, prefix: string) => {
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        for (const [key, child] of Object.entries(value)) walk(child, prefix ? `${prefix}.${key}` : key);
      } else if (prefix) paths.push(prefix);
    };
    if (row) walk(JSON.parse(row[0]), '');
    return paths.length ? `a dot path into the tenders, one of ${paths.slice(0, 20).join(', ')}` : 'a dot path into the tenders, as in buyer.name';
  }

  #syncRow(name: string): SyncRow | undefined {
    if (this.unborn) return undefined;
    return this.db.prepare('SELECT * FROM syncs WHERE name = ?').get(name) as SyncRow | undefined;
  }

  #syncInfo(row: SyncRow): SyncInfo {
    const run = this.db.prepare('SELECT * FROM runs WHERE run = ?').get(row.last_run) as RunRow;
    const tenders = (this.db.prepare('SELECT count(*) FROM sync_tenders WHERE sync = ? AND gone_at IS NULL').raw().get(row.name) as [number])[0];
    return {
      name: row.name,
      query: parseJson(row.query) as JsonObject,
      service: row.service,
      created: row.created,
      lastRun: receiptOf(run),
      lastComplete: row.last_complete ?? row.created,
      tenders,
    };
  }
}

function receiptOf(row: RunRow): RunReceipt {
  return {
    run: row.run,
    sync: row.sync,
    query: parseJson(row.query) as JsonObject,
    service: row.service,
    mode: row.mode,
    baseline: row.baseline === 1,
    startedAt: row.started,
    endedAt: row.ended,
    complete: row.complete === 1,
    pages: row.pages,
    requests: row.requests,
    counts: {
      new: row.new,
      changed: row.changed,
      gone: row.gone,
      unchanged: row.unchanged,
      seen: row.seen,
      repeated: row.repeated,
      withoutId: row.without_id,
    },
    error: row.error,
  };
}


/** A lock another process holds: that one does the work, not this one. */
function elsewhere(err: unknown): undefined {
  if (err instanceof RunError) return undefined;
  throw err;
}

/** A dot path as a SQLite JSON path: every key quoted, so a key may hold anything but a double quote. */
function jsonPath(path: string): string {
  return `$${dotPathKeys(path)
    .map((key) => `."${key}"`)
    .join('')}`;
}
