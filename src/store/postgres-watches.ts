/**
 * Watches' states in a PostgreSQL copy, for `tenders watch --db postgres://...`
 * (docs/local-copy-postgres.md): what a watch's state file holds
 * (src/run/watch/state.ts), as rows of `watches` (its header and summary) and
 * `watch_tenders` (one row per tender, in the file's order). A run holds the
 * watch's advisory lock from its start to its end on one connection, which
 * also reads the state and replaces it, in one transaction, once the run's
 * output was delivered: readers (`--list`, psql) see one run's state or the
 * next, and a run that dies leaves the previous one.
 */

import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { RunError, UsageError } from '../errors.js';
import { stringifyExact } from '../model/exact-json.js';
import type { SavedQuery } from '../model/saved-search.js';
import { checkOut, connect, failure, interruptible, parseTarget, type Connection, type Target } from './postgres-connect.js';
import { copyField } from './postgres-copy.js';
import { holderHere, lockKey, lockRun, unlockRun } from './postgres-lock.js';
import { ensureWatchTables, hasWatchTables, refuseSchema, schemaVersion, WATCH_TABLES } from './postgres-schema.js';
import { DEFAULT_BUSY_TIMEOUT_MS } from './store.js';
import type { WatchLock, WatchOpenOptions, WatchRecord, WatchStore, WatchTenderRow } from './watches.js';

interface WatchRow {
  name: string;
  format: number;
  query: unknown;
  service: string | null;
  created: string;
  last_run: string;
  tenders: number;
  newest_published: string | null;
  fields: string[][];
}

/** Rows read at a time. */
const BATCH = 5000;

export class PostgresWatches implements WatchStore {
  private constructor(
    private readonly connection: Connection,
    private readonly target: Target,
    /** The schema has the watches' tables (a read finds no watch without them). */
    private readonly ready: boolean,
    /** Ctrl-C: a wait on the server ends at once (OpenOptions.signal). */
    private readonly signal: AbortSignal | undefined,
  ) {}

  /**
   * Opens the copy at `url`. `write`: the watches' tables are made where
   * missing (an older copy upgraded; a schema without a copy gets them
   * alone, see ensureWatchTables), waiting up to `busyTimeoutMs` for a first
   * sync that is making the copy; `read`: nothing is made, and a schema
   * without those tables has no watches.
   */
  static async open(url: string, options: WatchOpenOptions): Promise<PostgresWatches> {
    const target = parseTarget(url, options.schema);
    const connection = await connect(target, 2, options.mode === 'write', options.env ?? {}, options.signal);
    try {
      const client = await connection.pool.connect();
      let ready: boolean;
      try {
        refuseSchema(await schemaVersion(client, connection.schema), target.location, connection.schema);
        const wait = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
        if (options.mode === 'write') {
          const making = () => ensureWatchTables(client, connection.schema, lockKey(connection.schema, 'migrate'), wait);
          await interruptible(connection.pool, client, options.signal, making);
          await checkWritable(client, target);
        }
        ready = await hasWatchTables(client, connection.schema);
        // Made or upgraded, a copy without them holds another program's table of that name.
        if (options.mode === 'write' && !ready) throw new UsageError(`${target.location}: schema ${connection.schema} holds a table named watches of another program`);
      } finally {
        client.release();
      }
      return new PostgresWatches(connection, target, ready, options.signal);
    } catch (err) {
      await connection.pool.end().catch(() => undefined);
      if ((err as { code?: string }).code === '55P03') {
        throw new RunError(`${target.location}: a sync is making (or upgrading) this copy; try again when it is done`);
      }
      throw failure(connection.interrupted(err), target, connection.scrub);
    }
  }

  /** Which copy this is (user, server, database, schema), whatever the URL left to libpq's variables. */
  get identity(): string {
    return this.connection.identity;
  }

  /** The copy, as printed: its URL without password. */
  get location(): string {
    return this.target.location;
  }

  /**
   * Takes the watch's lock (a second run of it fails at once, naming the
   * holder) on a connection of its own, which the run's reads and its save
   * then use. Resolves to the session that holds it.
   */
  async lock(name: string): Promise<LockedWatch> {
    const client = await this.#connect();
    try {
      const key = await lockRun(client, this.connection.schema, name, holderHere(), 'watch', this.signal);
      const run = <T>(work: () => Promise<T>) => interruptible(this.connection.pool, client, this.signal, work);
      return new LockedWatch(client, key, name, run, (err) => this.#failure(err));
    } catch (err) {
      client.release(true);
      throw this.#failure(err);
    }
  }

  /** Every watch of the copy, by name. */
  async list(): Promise<WatchRecord[]> {
    if (!this.ready) return [];
    try {
      this.connection.check();
      return (await this.connection.pool.query<WatchRow>('SELECT * FROM watches ORDER BY name')).rows.map(rowRecord);
    } catch (err) {
      throw this.#failure(err);
    }
  }

  /** The watch `name`, or undefined. */
  async get(name: string): Promise<WatchRecord | undefined> {
    if (!this.ready) return undefined;
    try {
      this.connection.check();
      const row = (await this.connection.pool.query<WatchRow>('SELECT * FROM watches WHERE name = $1', [name])).rows[0];
      return row && rowRecord(row);
    } catch (err) {
      throw this.#failure(err);
    }
  }

  async close(): Promise<void> {
    await this.connection.pool.end().catch(() => undefined);
  }

  async #connect(): Promise<pg.PoolClient> {
    this.connection.check();
    return checkOut(this.connection.pool, (err) => this.#failure(err));
  }

  #failure(err: unknown): Error {
    return failure(this.connection.interrupted(err), this.target, this.connection.scrub);
  }
}

/**
 * A run that cannot save its state is refused before its walk: it would
 * print (and post) its changes, fail, and print them again every run.
 */
async function checkWritable(client: pg.ClientBase, target: Target): Promise<void> {
  const { rows } = await client.query<{ ok: boolean }>(
    `SELECT bool_and(has_table_privilege(t, p)) AS ok FROM unnest($1::text[]) t, unnest(ARRAY['INSERT', 'UPDATE', 'DELETE']) p`,
    [WATCH_TABLES],
  );
  if (!rows[0]!.ok) {
    throw new RunError(`${target.location}: not allowed: this user may read the watches' tables but not write them (INSERT, UPDATE and DELETE on ${WATCH_TABLES.join(' and ')})`);
  }
}

/** One watch, its lock held: its state read, replaced or deleted on the connection that holds the lock. */
export class LockedWatch implements WatchLock {
  #broken = false;
  #lost: unknown;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly key: string,
    readonly name: string,
    /** Runs a statement that Ctrl-C cancels. */
    private readonly run: <T>(work: () => Promise<T>) => Promise<T>,
    private readonly fail: (err: unknown) => Error,
  ) {
    client.on('error', (err) => (this.#lost ??= err));
  }

  /** Throws once the connection that holds the lock is gone (the server stopped, the connection ended): the lock went with it. */
  check(): void {
    if (this.#lost !== undefined) throw this.fail(this.#lost);
  }

  /** The watch's tenders in its state's order, in batches, from one snapshot. */
  async *tenders(): AsyncGenerator<WatchTenderRow[]> {
    const { client } = this;
    await this.#do(() => client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'));
    try {
      for (let after = -1; ; ) {
        const { rows } = await this.#do(() =>
          client.query<{ seq: number; id: string; hashes: string; title: string | null; deadline: string | null }>(
            'SELECT seq, id::text AS id, hashes, title::text AS title, deadline::text AS deadline FROM watch_tenders WHERE watch = $1 AND seq > $2 ORDER BY seq LIMIT $3',
            [this.name, after, BATCH],
          ),
        );
        if (rows.length === 0) return;
        yield rows.map((r) => [r.id, r.hashes, r.title, r.deadline]);
        after = rows.at(-1)!.seq;
      }
    } finally {
      await client.query('ROLLBACK').catch(() => (this.#broken = true));
    }
  }

  /** Replaces the watch's state with `record` and `tenders`, in one transaction. */
  async save(record: WatchRecord, tenders: AsyncIterable<WatchTenderRow[]>): Promise<void> {
    const { client } = this;
    await this.#do(() => client.query('BEGIN'));
    try {
      await this.#do(() =>
        client.query(
          `INSERT INTO watches (name, format, query, service, created, last_run, tenders, newest_published, fields)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
           ON CONFLICT (name) DO UPDATE SET format = excluded.format, query = excluded.query, service = excluded.service,
             created = excluded.created, last_run = excluded.last_run, tenders = excluded.tenders,
             newest_published = excluded.newest_published, fields = excluded.fields`,
          [
            record.name,
            record.format,
            stringifyExact(record.query),
            record.service ?? null,
            record.created,
            record.lastRun,
            record.tenders,
            record.newestPublicationDate,
            JSON.stringify(record.fields),
          ],
        ),
      );
      await this.#do(() => client.query('DELETE FROM watch_tenders WHERE watch = $1', [this.name]));
      const name = copyField(this.name);
      let seq = 0;
      const lines = Readable.from(
        (async function* () {
          for await (const batch of tenders) {
            let text = '';
            for (const [id, hashes, title, deadline] of batch) {
              text += `${name}\t${seq++}\t${copyField(id)}\t${copyField(hashes)}\t${copyField(title)}\t${copyField(deadline)}\n`;
            }
            yield text;
          }
        })(),
      );
      await this.#do(() => pipeline(lines, client.query(copyFrom('COPY watch_tenders (watch, seq, id, hashes, title, deadline) FROM STDIN'))));
      await this.#do(() => client.query('COMMIT'));
    } catch (err) {
      await client.query('ROLLBACK').catch(() => (this.#broken = true));
      throw err;
    }
  }

  /** Deletes the watch; false when there is none. */
  async forget(): Promise<boolean> {
    const result = await this.#do(() => this.client.query('DELETE FROM watches WHERE name = $1', [this.name]));
    return (result.rowCount ?? 0) > 0;
  }

  /** Releases the lock and the connection. */
  async release(): Promise<void> {
    if (!this.#broken) await unlockRun(this.client, this.key).catch(() => (this.#broken = true));
    this.client.release(this.#broken);
  }

  async #do<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await this.run(work);
    } catch (err) {
      throw this.fail(err);
    }
  }
}

function rowRecord(row: WatchRow): WatchRecord {
  return {
    name: row.name,
    format: row.format,
    query: row.query as SavedQuery,
    ...(row.service === null ? {} : { service: row.service }),
    created: row.created,
    lastRun: row.last_run,
    tenders: row.tenders,
    newestPublicationDate: row.newest_published,
    fields: row.fields,
  };
}
