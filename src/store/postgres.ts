/**
 * The PostgreSQL engine of the store: the schema of docs/local-copy-schema.md
 * in one schema of one database (docs/local-copy-postgres.md), the answers of
 * the SQLite engine. Every connection comes from one pool of bounded size.
 */

import type pg from 'pg';
import { parseJson } from '../model/json-parse.js';
import { NoCopyError, RunError, UsageError } from '../errors.js';
import { queryKey } from '../model/query-key.js';
import { stringifyExact, type JsonObject } from '../model/exact-json.js';
import type { LocalSelection } from '../model/local-selection.js';
import { snake, sortCounts, stringColumn, timestamp } from './columns.js';
import { cancelStatement, checkOut, connect, failure, parseTarget, type Connection, type Target } from './postgres-connect.js';
import { holderHere, lockKey, lockRun, unlockRun } from './postgres-lock.js';
import { beyondNumeric } from './numeric-range.js';
import { PostgresRun, UNSTORABLE } from './postgres-run.js';
import { migrate, MIGRATIONS, refuseSchema, SCHEMA_VERSION, schemaVersion } from './postgres-schema.js';
import { afterCondition, afterPosition, fromWhere, objectPath, orderBy, orderOf, Params } from './postgres-select.js';
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

const CONNECTIONS = 4;
/** Tenders (or changes) handed on at a time by select and changes. */
const BATCH = 256;

export async function openPostgresStore(url: string, options: OpenOptions): Promise<Store> {
  const target = parseTarget(url, options.schema);
  const connection = await connect(target, Math.max(1, options.connections ?? CONNECTIONS), options.mode === 'write', options.env ?? {}, options.signal);
  try {
    const client = await connection.pool.connect();
    let version: number;
    try {
      version = await checkVersion(client, target, connection, options);
    } finally {
      client.release();
    }
    return new PostgresStore(connection, target, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS, version === 0, options.signal);
  } catch (err) {
    await connection.pool.end().catch(() => undefined);
    throw failure(connection.interrupted(err), target, connection.scrub);
  }
}

/**
 * The schema's version, upgraded for writing; refusals as usage errors. A
 * schema without tables (0) stays so: the copy is made by its first sync (postgres-run.ts).
 */
async function checkVersion(client: pg.PoolClient, target: Target, connection: Connection, { mode, definitionsOnly }: OpenOptions): Promise<number> {
  const where = target.location;
  const version = await schemaVersion(client, connection.schema);
  refuseSchema(version, where, connection.schema);
  if (mode === 'read' && version !== SCHEMA_VERSION) {
    if (version === 0) throw new NoCopyError(`no local copy in ${where} yet: run tenders sync first`);
    if (!definitionsOnly) throw new RunError(`${where} is a local copy of an older schema (version ${version}): run tenders sync to upgrade it`);
  }
  if (mode === 'write' && version > 0 && version < MIGRATIONS.length) await migrate(client, connection.schema, lockKey(connection.schema, 'migrate'));
  return version;
}

interface SyncRow {
  name: string;
  query: JsonObject;
  service: string;
  created: string;
  last_run: number | null;
  last_complete: string | null;
}

class PostgresStore implements Store {
  readonly #pool: pg.Pool;
  readonly #schema: string;
  #run: PostgresRun | undefined;

  constructor(
    private readonly connection: Connection,
    private readonly target: Target,
    private readonly busyTimeoutMs: number,
    /** The schema has no tables yet: nothing is stored, and a first run makes the copy. */
    private unborn: boolean,
    /** Cancels a run's commit (OpenOptions.signal). */
    private readonly signal: AbortSignal | undefined,
  ) {
    this.#pool = connection.pool;
    this.#schema = connection.schema;
  }

  async beginRun(options: RunOptions): Promise<SyncRun> {
    const { sync } = options;
    checkSyncName(sync.name);
    // The query is kept as jsonb: refused before any request rather than at the commit, in the server's words.
    const huge = beyondNumeric(sync.query, true);
    if (huge !== undefined) throw new UsageError(`the query holds a number beyond the range of PostgreSQL's numeric (${huge}): a PostgreSQL copy cannot keep it`);
    if (UNSTORABLE.test(stringifyExact(sync.query))) {
      throw new UsageError('the query holds a NUL character or an unpaired surrogate (\\u0000, \\ud800): a PostgreSQL copy cannot keep it');
    }
    if (this.#run) throw new Error('one sync run at a time per store');
    const saved = await this.#syncRow(sync.name);
    if (saved && !options.reset) {
      if (queryKey(saved.query) !== queryKey(sync.query)) {
        throw definitionMismatch(sync.name, 'query', JSON.stringify(saved.query), JSON.stringify(sync.query));
      }
      if (saved.service !== sync.service) throw definitionMismatch(sync.name, 'service', saved.service, sync.service);
    }
    const client = await this.#connect();
    let key: string;
    try {
      key = await lockRun(client, this.#schema, sync.name, holderHere(), 'sync', this.signal);
    } catch (err) {
      client.release(true); // whatever the failure, the connection holds no lock of this run
      throw this.#failure(err);
    }
    try {
      this.#run = await PostgresRun.start({
        client,
        sync,
        mode: options.mode,
        baseline: saved === undefined,
        commitKey: lockKey(this.#schema, 'commit'),
        newCopy: this.unborn,
        migrateKey: lockKey(this.#schema, 'migrate'),
        schema: this.#schema,
        busyTimeoutMs: this.busyTimeoutMs,
        location: this.target.location,
        fail: (err) => this.#failure(err),
        signal: this.signal,
        cancel: () => cancelStatement(this.#pool, client),
        release: async (broken) => {
          this.#run = undefined;
          if (!broken) await unlockRun(client, key).catch(() => (broken = true));
          if (this.unborn && !broken) this.unborn = (await schemaVersion(client, this.#schema).catch(() => 0)) === 0;
          client.release(broken);
        },
      });
      return this.#run;
    } catch (err) {
      client.release(true);
      throw this.#failure(err);
    }
  }

  async *select(selection: LocalSelection, options: SelectOptions = {}): AsyncGenerator<Record<string, unknown>[]> {
    const order = orderOf(selection);
    const params = new Params();
    const base = fromWhere(selection, true, params);
    const keyset =
      options.from !== undefined
        ? ` AND ${afterPosition(order, params.add(options.from.key), params.add(options.from.id))}`
        : options.after === undefined
          ? ''
          : ` AND ${afterCondition(order, params.add(options.after))}`;
    const limit = options.limit === undefined ? '' : ` LIMIT ${Math.max(0, Math.floor(options.limit))}`;
    if (options.after !== undefined) await this.#checkAfter(order.column, options.after);
    // One snapshot for every batch (whatever a sync commits meanwhile), read through a cursor.
    yield* this.#cursor(`SELECT t.doc_text ${base}${keyset} ${orderBy(order)}${limit}`, params.values, selection, (row: { doc_text: string }) =>
      parseJson(row.doc_text) as Record<string, unknown>,
    );
  }

  async count(selection: LocalSelection, byPath?: string): Promise<LocalCounts> {
    const keys = byPath === undefined ? undefined : dotPathKeys(byPath);
    const column = byPath === undefined ? undefined : stringColumn(byPath);
    // The total and every group from one snapshot: they add up whatever a sync commits meanwhile.
    const { total, rows } = await this.#snapshot(async (query) => {
      const count = async (value: ((p: Params) => string) | undefined, where: string) => {
        const p = new Params();
        const sql = fromWhere(selection, false, p);
        const q = value === undefined ? `SELECT NULL AS v, count(*) AS n ${sql}` : `SELECT ${value(p)} AS v, count(*) AS n ${sql}${where} GROUP BY 1`;
        const result = await query<{ v: string | null; n: string }>(q, p.values, selection);
        return result.rows.map((r) => [r.v, Number(r.n)] as [string | null, number]);
      };
      const all = (await count(undefined, ''))[0]![1];
      if (keys === undefined) return { total: all, rows: [] };
      // A string field's typed column holds its value; the others are read from the document's exact text (json keeps it).
      const fromDoc = (p: Params) => `(${objectPath('t.doc_text::json', 'json_typeof', keys, p)})::text`;
      const groups = column
        ? [
            ...(await count(() => `to_json(t.${snake(column)})::text`, ` AND t.${snake(column)} IS NOT NULL`)),
            ...(await count(fromDoc, ` AND t.${snake(column)} IS NULL`)),
          ]
        : await count(fromDoc, '');
      return { total: all, rows: groups };
    });
    if (keys === undefined) return { total, rows: [] };
    if (rows.every(([v]) => v === null) && !(await this.#anyHas(keys)) && (await this.#anyTender())) {
      throw new UsageError(`no stored tender has a field '${byPath}': ${await this.#fieldHint()}`);
    }
    sortCounts(rows);
    return { total, rows: rows.map(([v, n]) => ({ value: v === null ? undefined : parseJson(v), count: n })) };
  }

  async *changes(filter: ChangeFilter = {}): AsyncGenerator<ChangeRecord[]> {
    const params = new Params();
    const where: string[] = [];
    if (filter.sync !== undefined) {
      const name = params.add(filter.sync);
      // Another sync's change counts while this one held the tender (see sqlite.ts HELD_THEN).
      where.push(
        `(c.sync = ${name} OR (c.kind = 'changed' AND EXISTS (SELECT 1 FROM sync_tenders m WHERE m.sync = ${name} AND m.id = c.id
           AND m.first_seen <= c.at AND (m.gone_at IS NULL OR c.at <= m.gone_at))))`,
      );
    }
    if (filter.since !== undefined) where.push(`c.at >= ${params.add(timestamp(filter.since))}::timestamptz`);
    if (filter.id !== undefined) where.push(`c.id = ${params.add(filter.id)}`);
    const sql = `SELECT c.run, c.sync, c.id, c.kind, c.field, c.old::text AS old, c.new::text AS new, c.at FROM changes c
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY c.run, c.id, c.seq`;
    type Row = { run: number; sync: string; id: string; kind: ChangeRecord['kind']; field: string | null; old: string | null; new: string | null; at: string };
    yield* this.#cursor(sql, params.values, undefined, (r: Row) => ({
      run: r.run,
      sync: r.sync,
      id: r.id,
      kind: r.kind,
      field: r.field,
      old: r.old === null ? undefined : parseJson(r.old),
      new: r.new === null ? undefined : parseJson(r.new),
      at: r.at,
    }));
  }

  async listSyncs(): Promise<SyncInfo[]> {
    const rows = await this.#rows<SyncRow>('SELECT * FROM syncs ORDER BY name');
    return Promise.all(rows.map((row) => this.#syncInfo(row)));
  }

  /** A statement's rows; none while the copy is not made (its first sync makes the tables). */
  async #rows<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.unborn ? [] : (await this.#query<T>(sql, params)).rows;
  }

  async getSync(name: string): Promise<SyncInfo | undefined> {
    const row = await this.#syncRow(name);
    return row && this.#syncInfo(row);
  }

  async forget(name: string): Promise<{ tenders: number }> {
    checkSyncName(name);
    if (!(await this.#syncRow(name))) {
      const known = (await this.#rows<{ name: string }>('SELECT name FROM syncs ORDER BY name')).map((r) => r.name);
      throw new UsageError(`no sync named '${name}' in ${this.target.location}${known.length ? ` (there are: ${known.join(', ')})` : ''}`);
    }
    const client = await this.#connect();
    let broken = false;
    try {
      const key = await lockRun(client, this.#schema, name, holderHere());
      try {
        await client.query('BEGIN');
        await client.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.floor(this.busyTimeoutMs))}`);
        await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [lockKey(this.#schema, 'commit')]);
        const now = new Date().toISOString();
        const mine = 'SELECT id FROM sync_tenders WHERE sync = $1';
        const removed = await client.query(
          `DELETE FROM tenders WHERE id IN (${mine}) AND NOT EXISTS (SELECT 1 FROM sync_tenders o WHERE o.id = tenders.id AND o.sync <> $1)`,
          [name],
        );
        await client.query(
          `UPDATE tenders SET gone_at = $2 WHERE gone_at IS NULL AND id IN (${mine})
           AND NOT EXISTS (SELECT 1 FROM sync_tenders o WHERE o.id = tenders.id AND o.sync <> $1 AND o.gone_at IS NULL)`,
          [name, now],
        );
        for (const table of ['sync_tenders', 'changes', 'runs']) await client.query(`DELETE FROM ${table} WHERE sync = $1`, [name]);
        await client.query('DELETE FROM syncs WHERE name = $1', [name]);
        await client.query('COMMIT');
        return { tenders: removed.rowCount ?? 0 };
      } catch (err) {
        await client.query('ROLLBACK').catch(() => (broken = true));
        throw err;
      } finally {
        if (!broken) await unlockRun(client, key).catch(() => (broken = true));
      }
    } catch (err) {
      throw this.#failure(err);
    } finally {
      client.release(broken);
    }
  }

  async status(sync?: string): Promise<StoreStatus> {
    const one = async (sql: string, params: unknown[] = []) => (await this.#rows<{ v: unknown }>(sql, params))[0]?.v;
    return {
      location: this.target.location,
      schemaVersion: SCHEMA_VERSION,
      syncs: Number(await one('SELECT count(*) AS v FROM syncs')),
      tenders: Number(await one('SELECT count(*) AS v FROM tenders WHERE gone_at IS NULL')),
      lastComplete: ((sync === undefined
        ? await one('SELECT max(last_complete) AS v FROM syncs')
        : await one('SELECT last_complete AS v FROM syncs WHERE name = $1', [sync])) ?? null) as string | null,
    };
  }

  async close(): Promise<void> {
    await this.#run?.abort();
    await this.#pool.end().catch(() => undefined);
  }

  async #connect(): Promise<pg.PoolClient> {
    this.connection.check();
    return checkOut(this.#pool, (err) => this.#failure(err));
  }

  #failure(err: unknown): Error {
    return failure(this.connection.interrupted(err), this.target, this.connection.scrub);
  }

  async #query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = [], selection?: LocalSelection): Promise<pg.QueryResult<R>> {
    try {
      this.connection.check();
      return await this.#pool.query<R>(sql, params);
    } catch (err) {
      throw this.#queryError(err, selection);
    }
  }

  /** `work`'s queries in one read-only snapshot. */
  async #snapshot<T>(
    work: (query: <R extends pg.QueryResultRow>(sql: string, params: unknown[], selection?: LocalSelection) => Promise<pg.QueryResult<R>>) => Promise<T>,
  ): Promise<T> {
    const client = await this.#connect();
    let broken = false;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY').catch((err: unknown) => {
        throw this.#queryError(err, undefined);
      });
      return await work(async <R extends pg.QueryResultRow>(sql: string, params: unknown[], selection?: LocalSelection) => {
        try {
          return await client.query<R>(sql, params);
        } catch (err) {
          throw this.#queryError(err, selection);
        }
      });
    } finally {
      await client.query('ROLLBACK').catch(() => (broken = true));
      client.release(broken);
    }
  }

  /** Rows of `sql` in batches, in one read-only snapshot, through a cursor. */
  async *#cursor<R, T>(sql: string, params: unknown[], selection: LocalSelection | undefined, map: (row: R) => T): AsyncGenerator<T[]> {
    const client = await this.#connect();
    let broken = false;
    try {
      const query = (text: string, values?: unknown[]) =>
        client.query(text, values).catch((err: unknown) => {
          throw this.#queryError(err, selection);
        });
      await query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await query(`DECLARE rows NO SCROLL CURSOR FOR ${sql}`, params);
      for (;;) {
        this.connection.check();
        const { rows } = await query(`FETCH ${BATCH} FROM rows`);
        if (rows.length === 0) return;
        yield rows.map((row) => map(row as R));
        if (rows.length < BATCH) return;
      }
    } finally {
      await client.query('ROLLBACK').catch(() => (broken = true));
      client.release(broken);
    }
  }

  #queryError(err: unknown, selection: LocalSelection | undefined): Error {
    if (err instanceof UsageError || err instanceof RunError) return err;
    if (this.signal?.aborted) return this.#failure(err);
    const code = (err as { code?: string }).code ?? '';
    if (selection?.words !== undefined && code === '42601') return ftsError(selection.words, (err as Error).message);
    if (code.startsWith('08') || code === '57P01' || /^E[A-Z]+$/.test(code)) return this.#failure(err);
    return err as Error;
  }

  async #checkAfter(column: string, id: string): Promise<void> {
    const row = (await this.#query<{ v: unknown }>(`SELECT ${column} AS v FROM tenders WHERE id = $1`, [id])).rows[0];
    if (!row || row.v === null) throw new UsageError(`no tender '${id}' in the local copy to continue after (in this order)`);
  }

  async #anyTender(): Promise<boolean> {
    return (await this.#query('SELECT 1 FROM tenders LIMIT 1')).rows.length > 0;
  }

  async #anyHas(keys: string[]): Promise<boolean> {
    const p = new Params();
    return (await this.#query(`SELECT 1 FROM tenders WHERE ${objectPath('doc', 'jsonb_typeof', keys, p)} IS NOT NULL LIMIT 1`, p.values)).rows.length > 0;
  }

  /** The field paths of one stored tender, as examples of what --by takes. */
  async #fieldHint(): Promise<string> {
    const row = (await this.#query<{ doc_text: string }>('SELECT doc_text FROM tenders WHERE gone_at IS NULL LIMIT 1')).rows[0];
    const paths: string[] = [];
    const walk = (value: unknown, prefix: string) => {
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        for (const [key, child] of Object.entries(value)) walk(child, prefix ? `${prefix}.${key}` : key);
      } else if (prefix) paths.push(prefix);
    };
    if (row) walk(JSON.parse(row.doc_text), '');
    return paths.length ? `a dot path into the tenders, one of ${paths.slice(0, 20).join(', ')}` : 'a dot path into the tenders, as in buyer.name';
  }

  async #syncRow(name: string): Promise<SyncRow | undefined> {
    return (await this.#rows<SyncRow>('SELECT * FROM syncs WHERE name = $1', [name]))[0];
  }

  async #syncInfo(row: SyncRow): Promise<SyncInfo> {
    const run = (await this.#query<Record<string, unknown>>('SELECT * FROM runs WHERE run = $1', [row.last_run])).rows[0]!;
    const tenders = Number(
      (await this.#query<{ n: string }>('SELECT count(*) AS n FROM sync_tenders WHERE sync = $1 AND gone_at IS NULL', [row.name])).rows[0]!.n,
    );
    return {
      name: row.name,
      query: row.query,
      service: row.service,
      created: row.created,
      lastRun: receiptOf(run),
      lastComplete: row.last_complete ?? row.created,
      tenders,
    };
  }
}

function receiptOf(row: Record<string, unknown>): RunReceipt {
  const n = (key: string) => row[key] as number;
  return {
    run: n('run'),
    sync: row.sync as string,
    query: row.query as JsonObject,
    service: row.service as string,
    mode: row.mode as RunReceipt['mode'],
    baseline: row.baseline as boolean,
    startedAt: row.started as string,
    endedAt: row.ended as string,
    complete: row.complete as boolean,
    pages: n('pages'),
    requests: n('requests'),
    counts: {
      new: n('new'),
      changed: n('changed'),
      gone: n('gone'),
      unchanged: n('unchanged'),
      seen: n('seen'),
      repeated: n('repeated'),
      withoutId: n('without_id'),
    },
    error: row.error as string | null,
  };
}
