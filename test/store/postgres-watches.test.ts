import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunError, UsageError } from '../../src/errors.js';
import { openStore } from '../../src/store/open.js';
import { parseJson } from '../../src/model/json-parse.js';
import { lockKey } from '../../src/store/postgres-lock.js';
import { migrate, MIGRATIONS, SCHEMA_VERSION } from '../../src/store/postgres-schema.js';
import { PostgresWatches } from '../../src/store/postgres-watches.js';
import type { WatchRecord, WatchTenderRow } from '../../src/store/watches.js';
import { postgres, postgresBin, POSTGRES_MISSING, interruptWhileWaiting, whileLocked, type PostgresServer } from '../support/postgres.js';

function psql(url: string, sql: string): string {
  const result = spawnSync(join(postgresBin()!, 'psql'), [url, '-X', '-At', '-v', 'ON_ERROR_STOP=1', '-c', sql], { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  return result.stdout.trim();
}

const record = (tenders: number, lastRun = '2026-11-26T07:00:00.000Z'): WatchRecord => ({
  name: 'w',
  format: 1,
  // A --filter number beyond a double keeps its digits.
  query: parseJson('{"org":null,"body":{"statuses":["open"],"filter":{"estimatedValue.amount":{"gte":12345678901234567890123}}}}') as WatchRecord['query'],
  service: 'http://127.0.0.1:1',
  created: '2026-11-01T00:00:00.000Z',
  lastRun,
  tenders,
  newestPublicationDate: '2026-11-25',
  fields: [['title'], ['deadline']],
});

/** Rows as a state holds them: JSON texts with backslashes, quotes, escapes and every script; titles and deadlines absent. */
const ROWS: WatchTenderRow[] = [
  ['"T-1"', 'AAAAAAAAAAA', '"Ausschreibung \\"Straße\\" C:\\\\Pfad\\tTab"', '"2026-12-01T12:00:00Z"'],
  ['12345678901234567890', 'BBBBBBBBBBB', null, null],
  ['"T-\\u0000\\\\N"', 'CCCCCCCCCCC', '"Ποσότητα 🚑 \\u2028"', '17'],
  ['"\\\\N"', 'DDDDDDDDDDD', '""', null],
];

async function* batches(rows: WatchTenderRow[], size = 2): AsyncGenerator<WatchTenderRow[]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}

async function read(watches: PostgresWatches, name = 'w'): Promise<WatchTenderRow[]> {
  const locked = await watches.lock(name);
  try {
    const out: WatchTenderRow[] = [];
    for await (const batch of locked.tenders()) out.push(...batch);
    return out;
  } finally {
    await locked.release();
  }
}

/**
 * Waits until this process's tenders connection has tried for a lock another
 * holds, and asked who holds it (its last query), or until `locking` settles.
 */
async function waitForLockWaiter(url: string, locking: Promise<unknown>): Promise<void> {
  let settled = false;
  locking.then(
    () => (settled = true),
    () => (settled = true),
  );
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    while (!settled) {
      const { rows } = await admin.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE $1 AND query LIKE '%FROM pg_locks%'",
        [`tenders ${process.pid} %`],
      );
      if (rows[0]!.n > 0) return;
      await admin.query('SELECT pg_sleep(0.02)');
    }
  } finally {
    await admin.end();
  }
}

describe.skipIf(POSTGRES_MISSING)("watches' state in a PostgreSQL copy", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await postgres();
  });

  it('saves a state as rows and reads it back byte for byte, in order; a save replaces the state', async () => {
    const url = await server.createDatabase('watches');
    const watches = await PostgresWatches.open(url, { mode: 'write', schema: 'team' });
    expect(await watches.get('w')).toBeUndefined();
    const locked = await watches.lock('w');
    await locked.save(record(ROWS.length), batches(ROWS));
    await locked.release();
    expect(await read(watches)).toEqual(ROWS);
    const saved = await watches.get('w');
    expect(saved).toEqual(record(ROWS.length));
    expect(String((saved!.query.body as { filter: Record<string, { gte: unknown }> }).filter['estimatedValue.amount']!.gte)).toBe('12345678901234567890123');
    // psql reads them as JSON.
    expect(psql(url, "SELECT string_agg(coalesce(title #>> '{}', '-'), '|' ORDER BY seq) FROM team.watch_tenders")).toBe(
      'Ausschreibung "Straße" C:\\Pfad\tTab|-|Ποσότητα 🚑 \u2028|',
    );
    const again = await watches.lock('w');
    await again.save(record(1, '2026-11-27T07:00:00.000Z'), batches(ROWS.slice(3)));
    await again.release();
    expect(await read(watches)).toEqual(ROWS.slice(3));
    expect((await watches.list()).map((w) => [w.name, w.tenders, w.lastRun])).toEqual([['w', 1, '2026-11-27T07:00:00.000Z']]);
    await watches.close();
  });

  it('a save that fails part-way leaves the previous state', async () => {
    const url = await server.createDatabase('watchfail');
    const watches = await PostgresWatches.open(url, { mode: 'write' });
    const locked = await watches.lock('w');
    await locked.save(record(2), batches(ROWS.slice(0, 2)));
    async function* failing(): AsyncGenerator<WatchTenderRow[]> {
      yield ROWS.slice(2);
      throw new Error('disk gone');
    }
    await expect(locked.save(record(9, '2026-11-28T00:00:00.000Z'), failing())).rejects.toThrow(/disk gone/);
    await locked.release();
    expect(await read(watches)).toEqual(ROWS.slice(0, 2));
    expect((await watches.get('w'))!.tenders).toBe(2);
    await watches.close();
  });

  it('one run per watch: a second lock of the name fails at once naming the holder; other names go on; forget deletes', async () => {
    const url = await server.createDatabase('watchlock');
    const one = await PostgresWatches.open(url, { mode: 'write' });
    const two = await PostgresWatches.open(url, { mode: 'write' });
    const held = await one.lock('w');
    const err = await two.lock('w').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    expect((err as Error).message).toMatch(new RegExp(`^watch 'w' is running already: pid ${process.pid} on \\S+, since [-\\d:T]+Z; try again when it is done$`));
    const other = await two.lock('v');
    await other.release();
    await held.save(record(1), batches(ROWS.slice(0, 1)));
    expect(await held.forget()).toBe(true);
    expect(await held.forget()).toBe(false);
    await held.release();
    expect(psql(url, 'SELECT count(*) FROM watch_tenders')).toBe('0');
    await Promise.all([one.close(), two.close()]);
  });

  it("a lock still held for a run killed a moment ago (its process gone, its connection not yet) is waited for, not refused", async () => {
    const url = await server.createDatabase('watchgone');
    const watches = await PostgresWatches.open(url, { mode: 'write' });
    // The server's side of a run killed on this host: its connection holds the lock, named as tenders names it.
    const dead = new pg.Client({ connectionString: url, application_name: `tenders 4194303 2026-11-26T07:00:00Z ${hostname()}` });
    await dead.connect();
    await dead.query('SELECT pg_advisory_lock($1::bigint)', [lockKey('public', 'watch w')]);
    const locking = watches.lock('w');
    // The server ends that connection once it notices; here, once the run has found the lock taken (a refusal fails at once).
    await Promise.race([waitForLockWaiter(url, locking), locking]);
    await dead.end();
    const locked = await locking;
    await locked.release();
    await watches.close();
  });

  it("another program's table named watches is its own: the schema is refused, by a watch and by a sync, and nothing is added to it", async () => {
    const url = await server.createDatabase('watchforeign');
    psql(url, "CREATE SCHEMA other; CREATE TABLE other.watches (name text PRIMARY KEY, owner text); INSERT INTO other.watches VALUES ('alice', 'alice')");
    for (const mode of ['write', 'read'] as const) {
      const err = await PostgresWatches.open(`${url}?schema=other`, { mode }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message).toMatch(/schema other holds tables of another program/);
    }
    const sync = await openStore(`${url}?schema=other`, { mode: 'write' }).catch((e: unknown) => e);
    expect(sync).toBeInstanceOf(UsageError);
    expect(psql(url, "SELECT string_agg(tablename, ',') FROM pg_tables WHERE schemaname = 'other'")).toBe('watches');
  });

  it("a copy made before watches were kept, beside another program's watches table: its upgrade is refused, by a watch and by a sync", async () => {
    const url = await server.createDatabase('watchforeignold');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await migrate(client, 'public', lockKey('public', 'migrate'), MIGRATIONS.slice(0, 4));
    await client.end();
    psql(url, 'CREATE TABLE watches (name text PRIMARY KEY, owner text)');
    const watch = await PostgresWatches.open(url, { mode: 'write' }).catch((e: unknown) => e);
    expect(watch).toBeInstanceOf(UsageError);
    expect((watch as Error).message).toBe('schema public holds a table named watches or watch_tenders of another program: tenders cannot upgrade this copy there');
    expect(await openStore(url, { mode: 'write' }).catch((e: unknown) => e)).toBeInstanceOf(UsageError);
    expect(psql(url, "SELECT value FROM meta WHERE key = 'schema_version'")).toBe('4');
  });

  it("Ctrl-C while a watch waits for a first sync that is making the copy: the interruption thrown at once, nothing made", async () => {
    const url = await server.createDatabase('watchwait');
    const sync = new pg.Client({ connectionString: url }); // as a first sync making the copy holds it
    await sync.connect();
    await sync.query('SELECT pg_advisory_lock($1::bigint)', [lockKey('public', 'migrate')]);
    const interrupt = new AbortController();
    try {
      await interruptWhileWaiting(url, interrupt, [PostgresWatches.open(url, { mode: 'write', signal: interrupt.signal })]);
    } finally {
      await sync.end();
    }
    expect(psql(url, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")).toBe('0');
  });

  it('Ctrl-C while a read of the watches waits on a table someone locked: the interruption thrown at once', async () => {
    const url = await server.createDatabase('watchread');
    const writer = await PostgresWatches.open(url, { mode: 'write' });
    await writer.close();
    const interrupt = new AbortController();
    const watches = await PostgresWatches.open(url, { mode: 'read', signal: interrupt.signal });
    try {
      await whileLocked(url, 'watches', async () => {
        await interruptWhileWaiting(url, interrupt, [watches.get('w'), watches.list()]);
      });
    } finally {
      await watches.close();
    }
  });

  it('reading creates nothing; writing upgrades a copy made before watches were kept', async () => {
    const url = await server.createDatabase('watchupgrade');
    const empty = await PostgresWatches.open(`${url}?schema=nothing`, { mode: 'read' });
    expect(await empty.list()).toEqual([]);
    await empty.close();
    expect(psql(url, "SELECT count(*) FROM pg_namespace WHERE nspname = 'nothing'")).toBe('0');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await migrate(client, 'public', lockKey('public', 'migrate'), MIGRATIONS.slice(0, 4));
    await client.end();
    const older = await PostgresWatches.open(url, { mode: 'read' });
    expect(await older.get('w')).toBeUndefined();
    await older.close();
    expect(psql(url, "SELECT value FROM meta WHERE key = 'schema_version'")).toBe('4');
    const writer = await PostgresWatches.open(url, { mode: 'write' });
    await writer.close();
    expect(psql(url, "SELECT value FROM meta WHERE key = 'schema_version'")).toBe(String(SCHEMA_VERSION));
    expect(psql(url, "SELECT string_agg(table_name, ',' ORDER BY table_name) FROM information_schema.tables WHERE table_name LIKE 'watch%'")).toBe('watch_tenders,watches');
  });
});
