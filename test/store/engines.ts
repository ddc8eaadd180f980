import { mkdtempSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import pg from 'pg';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/open.js';
import { SCHEMA_VERSION as POSTGRES_VERSION } from '../../src/store/postgres-schema.js';
import { SCHEMA_VERSION as SQLITE_VERSION } from '../../src/store/sqlite-schema.js';
import type { OpenOptions, RunMode, RunReceipt, Store } from '../../src/store/store.js';
import { postgres, POSTGRES_MISSING } from '../support/postgres.js';

/**
 * The engines the one store suite (store.test.ts) runs against. Each gives a
 * fresh, empty location per test; `open` goes through openStore as the CLI does.
 * PostgreSQL runs where it is installed (one throwaway cluster per test run,
 * a database per test); elsewhere its tests are skipped with one line.
 */
export interface Engine {
  name: string;
  /** The schema version this build writes in this engine. */
  schemaVersion: number;
  /** A new empty location (file path or URL) and how to remove it. */
  location(): Promise<{ location: string; cleanup: () => Promise<void> }>;
  /** The rows of `sql` read from the copy at `location` with the engine's own client, not the store: each row an array, booleans as 0 or 1. */
  rows(location: string, sql: string): Promise<unknown[][]>;
  /** Runs `sql` (statements separated by semicolons) on the copy at `location` with the engine's own client: what another program, or an older tenders, may do. */
  exec(location: string, sql: string): Promise<void>;
  /** The statements that make a copy of this build one of the version before the CPV codes, as far as that version's tables go (the migrations since are then run again). */
  previousVersion: string;
}

export const sqliteEngine: Engine = {
  name: 'sqlite',
  schemaVersion: SQLITE_VERSION,
  async location() {
    const dir = mkdtempSync(join(tmpdir(), 'tenders-store-'));
    return { location: join(dir, 'tenders.db'), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  },
  async rows(location, sql) {
    const db = new Database(location, { readonly: true });
    try {
      return db.prepare(sql).raw().all() as unknown[][];
    } finally {
      db.close();
    }
  },
  async exec(location, sql) {
    const db = new Database(location);
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
  },
  previousVersion: `DROP TABLE serve_secret; DROP TABLE tender_cpv; ALTER TABLE tenders DROP COLUMN cpv; UPDATE meta SET value = '${SQLITE_VERSION - 3}' WHERE key = 'schema_version'`,
};

export const postgresEngine: Engine = {
  name: 'postgres',
  schemaVersion: POSTGRES_VERSION,
  async location() {
    // Databases live as long as the run's cluster, which the global teardown removes.
    return { location: await (await postgres()).createDatabase('store'), cleanup: async () => undefined };
  },
  async rows(location, sql) {
    const client = new pg.Client({ connectionString: location });
    await client.connect();
    try {
      const { rows } = await client.query({ text: sql, rowMode: 'array' });
      return (rows as unknown[][]).map((row) => row.map((value) => (typeof value === 'boolean' ? Number(value) : value)));
    } finally {
      await client.end();
    }
  },
  async exec(location, sql) {
    const client = new pg.Client({ connectionString: location });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  },
  // Version 5 weighed no word of tsv (and 6 had no serve_secret; the upgrade to 8 is run again, on what it leaves as it was).
  previousVersion: `DROP TABLE serve_secret; DROP TABLE tender_cpv; ALTER TABLE tenders DROP COLUMN cpv; UPDATE tenders SET tsv = setweight(tsv, 'D');
    UPDATE meta SET value = '${POSTGRES_VERSION - 3}' WHERE key = 'schema_version'`,
};


export const engines: Engine[] = POSTGRES_MISSING ? [sqliteEngine] : [sqliteEngine, postgresEngine];

export function open(location: string, mode: OpenOptions['mode'] = 'write', extra: Partial<OpenOptions> = {}): Promise<Store> {
  return openStore(location, { mode, ...extra });
}

/**
 * One complete run of sync `name` over `tenders`, `page` tenders to a page (the receipt says
 * so), with the saved query {}, `service` and `cpvPaths` (the setting); one that fails records its receipt, as `tenders
 * sync` does.
 */
export async function sync(
  store: Store,
  name: string,
  tenders: readonly Record<string, unknown>[],
  { mode = 'full', page = 50, service = 'http://127.0.0.1:1', cpvPaths }: { mode?: RunMode; page?: number; service?: string; cpvPaths?: readonly string[] } = {},
): Promise<RunReceipt> {
  const run = await store.beginRun({ sync: { name, query: {}, service }, mode, cpvPaths });
  let pages = 0;
  try {
    for (; pages * page < tenders.length; pages++) await run.add(tenders.slice(pages * page, (pages + 1) * page));
    return await run.commit({ complete: true, pages, requests: pages });
  } catch (err) {
    // As `tenders sync` does: a failed run records its receipt.
    await run.commit({ complete: false, pages, requests: pages, error: (err as Error).message }).catch(() => undefined);
    throw err;
  }
}

/** `n` letters in no pattern a compressor finds (a seeded Lehmer generator): text PostgreSQL cannot shrink. */
export function letters(n: number): string {
  let seed = 1;
  return Array.from({ length: n }, () => String.fromCharCode(97 + ((seed = (seed * 48271) % 2147483647) % 26))).join('');
}

/** Every batch of `batches`, in one array. */
export async function all<T>(batches: AsyncIterable<T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const batch of batches) out.push(...batch);
  return out;
}
