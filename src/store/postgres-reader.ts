/**
 * How the PostgreSQL store reads: statements on the pool, a read-only
 * snapshot for several, a cursor for many rows; the server's failures as the
 * store's errors (a refused full-text query, a lost server, Ctrl-C).
 */

import type pg from 'pg';
import { RunError, UsageError } from '../errors.js';
import type { LocalSelection } from '../model/local-selection.js';
import { checkOut, failure, type Connection, type Target } from './postgres-connect.js';
import { ftsError, ftsWords } from './rules.js';
import type { Statement } from './sql/dialect.js';

/** Rows handed on at a time by a cursor. */
const BATCH = 256;

export class PostgresReader {
  /** Cursors declared in the held transaction so far: each its own name. */
  #cursors = 0;

  constructor(
    private readonly connection: Connection,
    private readonly target: Target,
    /** The command's interruption (OpenOptions.signal). */
    private readonly signal: AbortSignal | undefined,
    /** Each statement of a snapshot ends after this (OpenOptions.statementTimeoutMs). */
    private readonly statementTimeoutMs?: number,
    /** A client in a read-only snapshot (held()) that every statement of this reader runs in, until end(). */
    private readonly client?: pg.PoolClient,
  ) {}

  /** A reader whose statements all run in one read-only snapshot, on one client of the pool, until its end(). */
  async held(): Promise<PostgresReader> {
    const client = await this.connect();
    try {
      await client.query(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY${this.#bounded}`);
    } catch (err) {
      client.release(true);
      throw this.queryError(err, undefined);
    }
    return new PostgresReader(this.connection, this.target, this.signal, this.statementTimeoutMs, client);
  }

  /** Ends a held reader's snapshot and gives its client back. */
  async end(): Promise<void> {
    const client = this.client!;
    let broken = false;
    await client.query('ROLLBACK').catch(() => (broken = true));
    client.release(broken);
  }

  /** The snapshot's statements bounded, when the store is (SET LOCAL: it ends with the transaction). */
  get #bounded(): string {
    const ms = this.statementTimeoutMs;
    return ms === undefined ? '' : `; SET LOCAL statement_timeout = ${Math.max(1, Math.floor(ms))}`;
  }

  async connect(): Promise<pg.PoolClient> {
    this.connection.check();
    return checkOut(this.connection.pool, (err) => this.failure(err));
  }

  failure(err: unknown): Error {
    return failure(this.connection.interrupted(err), this.target, this.connection.scrub);
  }

  async query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = [], selection?: LocalSelection): Promise<pg.QueryResult<R>> {
    try {
      this.connection.check();
      return await (this.client ?? this.connection.pool).query<R>(sql, params);
    } catch (err) {
      throw this.queryError(err, selection);
    }
  }

  /** One statement on a pooled connection, outside a transaction (the cheapest read); rows as arrays. */
  async rows(s: Statement): Promise<unknown[][]> {
    const client = await this.connect();
    let failed = false;
    try {
      return (await client.query<unknown[]>({ text: s.sql, values: s.params, rowMode: 'array' })).rows;
    } catch (err) {
      failed = true; // a connection that failed a statement is not handed out again
      throw this.queryError(err, undefined);
    } finally {
      client.release(failed);
    }
  }

  /** `work`'s statements in one read-only snapshot; rows as arrays. */
  async snapshot<T>(work: (read: (s: Statement, selection?: LocalSelection) => Promise<unknown[][]>) => Promise<T>): Promise<T> {
    const reader = this.client ? this : await this.held();
    try {
      return await work(async (s, selection) => {
        try {
          return (await reader.client!.query<unknown[]>({ text: s.sql, values: s.params, rowMode: 'array' })).rows;
        } catch (err) {
          throw this.queryError(err, selection);
        }
      });
    } finally {
      if (reader !== this) await reader.end();
    }
  }

  /** Rows of `sql` in batches, in one read-only snapshot, through a cursor. */
  async *cursor<T>(sql: string, params: unknown[], selection: LocalSelection | undefined, map: (row: unknown[]) => T): AsyncGenerator<T[]> {
    const reader = this.client ? this : await this.held();
    const client = reader.client!;
    const name = `rows_${++reader.#cursors}`;
    try {
      const query = (text: string, values?: unknown[]) =>
        client.query<unknown[]>({ text, values, rowMode: 'array' }).catch((err: unknown) => {
          throw this.queryError(err, selection);
        });
      await query(`DECLARE ${name} NO SCROLL CURSOR FOR ${sql}`, params);
      for (;;) {
        this.connection.check();
        const { rows } = await query(`FETCH ${BATCH} FROM ${name}`);
        if (rows.length === 0) return;
        yield rows.map(map);
        if (rows.length < BATCH) return;
      }
    } finally {
      // A held snapshot goes on (its other reads); its cursors end with it (no round trip to close each).
      if (reader !== this) await reader.end();
    }
  }

  queryError(err: unknown, selection: LocalSelection | undefined): Error {
    if (err instanceof UsageError || err instanceof RunError) return err;
    if (this.signal?.aborted) return this.failure(err);
    const code = (err as { code?: string }).code ?? '';
    const words = selection && ftsWords(selection);
    if (words !== undefined && code === '42601') return ftsError(words, (err as Error).message);
    if (code.startsWith('08') || code === '57P01' || /^E[A-Z]+$/.test(code)) return this.failure(err);
    return err as Error;
  }
}
