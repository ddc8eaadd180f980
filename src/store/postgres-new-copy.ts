/**
 * A PostgreSQL run's dealings with the copy as a whole: whether it makes the
 * copy (its first run), and what the copy's commits have made of it.
 */

import type pg from 'pg';
import { RunError } from '../errors.js';
import { createCopy, migrate, SCHEMA_VERSION, schemaVersion, TENDER_INDEXES } from './postgres-schema.js';
import { indexName } from './tender-indexes.js';
import { waited } from './rules.js';
import { postgresDialect } from './sql/dialect.js';
import { readGeneration } from './sql/reads.js';
import { cpvStatements } from './sql/writes.js';

/** The key of tenders and of the membership, and the membership's index, as the schema names them: dropped while a new copy is written, made again at its end. */
const TENDER_KEY = 'ALTER TABLE tenders ADD CONSTRAINT tenders_pkey PRIMARY KEY (id)';
const MEMBERSHIP_KEYS = ['ALTER TABLE sync_tenders ADD CONSTRAINT sync_tenders_pkey PRIMARY KEY (sync, id)', 'CREATE INDEX sync_tenders_id ON sync_tenders (id)'];

/** What makesCopy needs of a run. */
export interface CopyContext {
  client: pg.PoolClient;
  migrateKey: string;
  schema: string;
  location: string;
}

/**
 * Whether this run makes the copy (`building`): it took the lock of upgrades,
 * and the schema still has no tables; then the run's transaction has made
 * them, without the keys and indexes the end builds, and stays open. Else
 * nothing is begun: the copy is `made` already, or `pending` (another run is
 * making it: this one waits at its commit, not now).
 */
export async function makesCopy(ctx: CopyContext): Promise<'building' | 'made' | 'pending'> {
  const { client } = ctx;
  await client.query('BEGIN');
  let version: number | undefined;
  try {
    const { rows } = await client.query<{ mine: boolean }>('SELECT pg_try_advisory_xact_lock($1::bigint) AS mine', [ctx.migrateKey]);
    if (!rows[0]!.mine) {
      await client.query('COMMIT');
      return 'pending';
    }
    version = await schemaVersion(client, ctx.schema);
    if (version === 0) {
      // The transaction waits between pages as the walk does (a slow service, a Retry-After): a server that
      // ends idle transactions (idle_in_transaction_session_timeout) must not end this one.
      await client.query('SET LOCAL idle_in_transaction_session_timeout = 0');
      await createCopy(client);
      await client.query('ALTER TABLE tenders DROP CONSTRAINT tenders_pkey; ALTER TABLE sync_tenders DROP CONSTRAINT sync_tenders_pkey; DROP INDEX sync_tenders_id');
      for (const sql of TENDER_INDEXES) await client.query(`DROP INDEX ${indexName(sql)}`);
      return 'building';
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
  // Made meanwhile, maybe by another version of tenders: upgraded if older, refused if newer.
  if (version === undefined || version > SCHEMA_VERSION) {
    throw new RunError(`${ctx.location} was made meanwhile by another program or a newer tenders (schema version ${version ?? 'unknown'}): this sync cannot write it`);
  }
  if (version < SCHEMA_VERSION) await migrate(client, ctx.schema, ctx.migrateKey);
  return 'made';
}

/**
 * What the copy's commits have made of it (sql/reads.ts readGeneration). Read
 * under the commit lock, a different answer than at the run's start means
 * another writer committed meanwhile.
 */
export function commits(client: pg.ClientBase): Promise<string> {
  return readGeneration(async (s) => (await client.query<unknown[]>({ text: s.sql, values: s.params, rowMode: 'array' })).rows);
}

/** Makes the copy's tables as any upgrade does, waiting (bounded) for a run that is making them. */
export async function makeCopyWaiting(ctx: CopyContext & { busyTimeoutMs: number }): Promise<void> {
  const { client, schema, migrateKey, busyTimeoutMs } = ctx;
  await migrate(client, schema, migrateKey, undefined, busyTimeoutMs).catch((err: unknown) => {
    if ((err as { code?: string }).code === '55P03') {
      throw new RunError(`${ctx.location} is being made by the first run of another sync, for more than ${waited(busyTimeoutMs)}; try again when it is done`);
    }
    throw err;
  });
}

/**
 * The key of a new copy's tenders, made once they are in; returns how many
 * rows repeated an id. A repeat fails the key (undone to a savepoint) and
 * only then are the earlier rows of each repeated id removed: the last
 * counts, and a fresh table's rows lie in the order they were COPied.
 */
async function makeKey(client: pg.ClientBase): Promise<number> {
  await client.query('SAVEPOINT key');
  try {
    await client.query(TENDER_KEY);
    return 0;
  } catch (err) {
    if ((err as { code?: string }).code !== '23505') throw err;
    await client.query('ROLLBACK TO SAVEPOINT key');
  }
  const repeated = (await client.query('DELETE FROM tenders a USING tenders b WHERE a.id = b.id AND a.ctid < b.ctid')).rowCount ?? 0;
  await client.query(TENDER_KEY);
  return repeated;
}

/**
 * The end of a new copy's first run, its tenders written: their key and
 * indexes, the membership of sync `name`, the codes' side table. Returns how
 * many rows repeated an id.
 */
export async function finishTables(client: pg.ClientBase, name: string, now: string): Promise<number> {
  const repeated = await makeKey(client);
  for (const sql of TENDER_INDEXES) await client.query(sql);
  await client.query('INSERT INTO sync_tenders (sync, id, first_seen, last_seen) SELECT $1, id, $2, $2 FROM tenders', [name, now]);
  for (const sql of MEMBERSHIP_KEYS) await client.query(sql);
  for (const s of cpvStatements(postgresDialect)) await client.query(s.sql, s.params);
  return repeated;
}
