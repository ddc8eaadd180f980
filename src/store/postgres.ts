/**
 * The PostgreSQL engine of the store: the schema of docs/local-copy-schema.md
 * in one schema of one database (docs/local-copy-postgres.md), the answers of
 * the SQLite engine. Every connection comes from one pool of bounded size.
 */

import type pg from 'pg';
import { UsageError } from '../errors.js';
import { DEFAULT_CPV_PATHS } from '../model/cpv.js';
import { stringifyExact } from '../model/exact-json.js';
import { parseJson } from '../model/json-parse.js';
import type { LocalSelection } from '../model/local-selection.js';
import { beyondNumeric } from './numeric-range.js';
import { connect, failure, parseTarget, cancelStatement, type Connection, type Target } from './postgres-connect.js';
import { UNSTORABLE } from './postgres-copy-row.js';
import { holderHere, lockKey, lockRun, unlockRun } from './postgres-lock.js';
import { PostgresReader } from './postgres-reader.js';
import type { PostgresRun } from './postgres-run.js';
import { checkVersion, SCHEMA_VERSION, schemaVersion } from './postgres-schema.js';
import { checkDefinition, checkSyncName } from './rules.js';
import { postgresDialect, statement } from './sql/dialect.js';
import { changeRecord, changesStatement, countTenders, forgetStatements, readCopyCpvPaths, readCursorSecret, readGeneration, readStatus, readSyncs, readTender, searchChanges, syncNames } from './sql/reads.js';
import { afterCondition, fromWhere, orderBy, orderOf } from './sql/selection.js';
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

const CONNECTIONS = 4;

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
    return new PostgresStore(connection, target, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS, version === 0, options.signal, options.statementTimeoutMs);
  } catch (err) {
    await connection.pool.end().catch(() => undefined);
    throw failure(connection.interrupted(err), target, connection.scrub);
  }
}

class PostgresStore implements Store {
  readonly #pool: pg.Pool;
  readonly #schema: string;
  readonly #reader: PostgresReader;
  readonly #connection: Connection;
  readonly #statementTimeoutMs: number | undefined;
  #run: PostgresRun | undefined;

  constructor(
    connection: Connection,
    private readonly target: Target,
    private readonly busyTimeoutMs: number,
    /** The schema has no tables yet: nothing is stored, and a first run makes the copy. */
    private unborn: boolean,
    /** Cancels a run's commit (OpenOptions.signal). */
    private readonly signal: AbortSignal | undefined,
    statementTimeoutMs: number | undefined,
    /** A snapshot (snapshot()): its reads all run in this held reader, which close() ends (the pool stays). */
    private readonly held?: PostgresReader,
  ) {
    this.#pool = connection.pool;
    this.#schema = connection.schema;
    this.#reader = held ?? new PostgresReader(connection, target, signal, statementTimeoutMs);
    this.#connection = connection;
    this.#statementTimeoutMs = statementTimeoutMs;
  }

  async snapshot(): Promise<Store> {
    // A copy no sync has made holds nothing to read: its snapshot holds no connection either.
    const held = this.unborn ? undefined : await this.#reader.held();
    return new PostgresStore(this.#connection, this.target, this.busyTimeoutMs, this.unborn, this.signal, this.#statementTimeoutMs, held ?? this.#reader);
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
    if (this.held) throw new Error('a snapshot only reads');
    if (this.#run) throw new Error('one sync run at a time per store');
    const saved = await this.getSync(sync.name);
    checkDefinition(sync, saved, options.reset);
    const client = await this.#reader.connect();
    let key: string;
    try {
      key = await lockRun(client, this.#schema, sync.name, holderHere(), 'sync', this.signal);
    } catch (err) {
      client.release(true); // whatever the failure, the connection holds no lock of this run
      throw this.#reader.failure(err);
    }
    try {
      // The run's code (and pg-copy-streams) for a run only: a read of the copy does without it.
      const { PostgresRun } = await import('./postgres-run.js');
      this.#run = await PostgresRun.start({
        client,
        sync,
        mode: options.mode,
        baseline: saved === undefined,
        cpvPaths: options.cpvPaths ?? DEFAULT_CPV_PATHS,
        commitKey: lockKey(this.#schema, 'commit'),
        newCopy: this.unborn,
        migrateKey: lockKey(this.#schema, 'migrate'),
        schema: this.#schema,
        busyTimeoutMs: this.busyTimeoutMs,
        location: this.target.location,
        fail: (err) => this.#reader.failure(err),
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
      throw this.#reader.failure(err);
    }
  }

  async *select(selection: LocalSelection, options: SelectOptions = {}): AsyncGenerator<Record<string, unknown>[]> {
    const order = orderOf(selection);
    const limit = options.limit === undefined ? '' : ` LIMIT ${Math.max(0, Math.floor(options.limit))}`;
    if (options.after !== undefined) await this.#checkAfter(order.column, options.after);
    const { sql, params } = statement(postgresDialect, (q) => {
      const base = fromWhere(selection, true, q);
      // A serve cursor's position (its tender may be gone since), or the tender `after` names.
      const cast = order.column === 'value_eur' ? 'numeric' : 'timestamptz';
      const key =
        options.from !== undefined
          ? `(${q.value(options.from.key)}::${cast}, ${q.value(options.from.id)}::text)`
          : options.after === undefined
            ? undefined
            : `(SELECT a.${order.column}, a.id FROM tenders a WHERE a.id = ${q.value(options.after)})`;
      return `SELECT t.doc_text ${base}${key === undefined ? '' : ` AND ${afterCondition(order, key)}`} ${orderBy(order)}${limit}`;
    });
    // One snapshot for every batch (whatever a sync commits meanwhile), read through a cursor.
    yield* this.#reader.cursor(sql, params, selection, (row) => parseJson(row[0] as string) as Record<string, unknown>);
  }

  async count(selection: LocalSelection, byPath?: string, options?: CountOptions): Promise<LocalCounts> {
    // The total and every group from one snapshot: they add up whatever a sync commits meanwhile.
    return this.#reader.snapshot(async (read) => {
      // count --by cpv hashes every (tender, group) of the codes: 40 MB at 200 000 tenders, spilled to disk in batches
      // at the server's default of 4 MB (a third of the count's time, measured). Bounded still: it spills beyond.
      if (byPath === 'cpv') await read({ sql: "SET LOCAL work_mem = '32MB'", params: [] });
      return countTenders((s) => read(s, selection), postgresDialect, selection, byPath, options);
    });
  }

  async *changes(filter: ChangeFilter = {}): AsyncGenerator<ChangeRecord[]> {
    const { sql, params } = changesStatement(postgresDialect, filter);
    yield* this.#reader.cursor(sql, params, undefined, changeRecord);
  }

  async searchChanges(search: ChangeSearch, options?: ChangePageOptions): Promise<{ changes: KeyedChange[]; total?: number }> {
    if (this.unborn) return { changes: [], total: options?.count ? 0 : undefined };
    // The page and its total from one snapshot.
    return this.#reader.snapshot((read) => searchChanges(read, postgresDialect, search, options));
  }

  async cpvPaths(): Promise<readonly string[]> {
    return this.unborn ? DEFAULT_CPV_PATHS : this.#reader.snapshot((read) => readCopyCpvPaths(read));
  }

  async cursorSecret(): Promise<string | undefined> {
    return this.unborn ? undefined : this.#reader.snapshot((read) => readCursorSecret(read));
  }

  async generation(): Promise<string> {
    // One statement outside a transaction: the cheapest read, asked before every answer tenders serve keeps.
    return this.unborn ? '' : readGeneration((s) => this.#reader.rows(s));
  }

  async getTender(id: string): Promise<StoredTender | undefined> {
    return this.unborn ? undefined : this.#reader.snapshot((read) => readTender(read, postgresDialect, id));
  }

  async listSyncs(): Promise<SyncInfo[]> {
    return this.unborn ? [] : this.#reader.snapshot((read) => readSyncs(read, postgresDialect));
  }

  async getSync(name: string): Promise<SyncInfo | undefined> {
    return this.unborn ? undefined : (await this.#reader.snapshot((read) => readSyncs(read, postgresDialect, name)))[0];
  }

  async forget(name: string): Promise<{ tenders: number }> {
    checkSyncName(name);
    if (this.held) throw new Error('a snapshot only reads');
    if (!(await this.getSync(name))) {
      const known = this.unborn ? [] : await this.#reader.snapshot((read) => syncNames(read));
      throw new UsageError(`no sync named '${name}' in ${this.target.location}${known.length ? ` (there are: ${known.join(', ')})` : ''}`);
    }
    const client = await this.#reader.connect();
    let broken = false;
    try {
      const key = await lockRun(client, this.#schema, name, holderHere());
      try {
        await client.query('BEGIN');
        await client.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.floor(this.busyTimeoutMs))}`);
        await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [lockKey(this.#schema, 'commit')]);
        let tenders = 0;
        for (const s of forgetStatements(postgresDialect, name, new Date().toISOString())) {
          const { rowCount } = await client.query(s.sql, s.params);
          if (s.counted) tenders = rowCount ?? 0;
        }
        await client.query('COMMIT');
        return { tenders };
      } catch (err) {
        await client.query('ROLLBACK').catch(() => (broken = true));
        throw err;
      } finally {
        if (!broken) await unlockRun(client, key).catch(() => (broken = true));
      }
    } catch (err) {
      throw this.#reader.failure(err);
    } finally {
      client.release(broken);
    }
  }

  async status(sync?: string): Promise<StoreStatus> {
    if (this.unborn) return { location: this.target.location, schemaVersion: SCHEMA_VERSION, syncs: 0, tenders: 0, lastComplete: null };
    return this.#reader.snapshot((read) => readStatus(read, postgresDialect, this.target.location, SCHEMA_VERSION, sync));
  }

  async close(): Promise<void> {
    if (this.held) return this.unborn ? undefined : this.held.end();
    await this.#run?.abort();
    await this.#pool.end().catch(() => undefined);
  }

  async #checkAfter(column: string, id: string): Promise<void> {
    const row = (await this.#reader.query<{ v: unknown }>(`SELECT ${column} AS v FROM tenders WHERE id = $1`, [id])).rows[0];
    if (!row || row.v === null) throw new UsageError(`no tender '${id}' in the local copy to continue after (in this order)`);
  }

}
