import { createHash } from 'node:crypto';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import { Store as Sandbox } from '../../src/sandbox/store.js';
import { runCli } from '../support/cli.js';
import { sandboxDocs, syncInto } from '../support/local-copy.js';
import { postgres, POSTGRES_MISSING } from '../support/postgres.js';
import { useSandbox } from '../support/sandbox.js';
import { post, withReplica } from '../support/serve.js';
import { testDir } from '../support/test-context.js';

/**
 * `tenders serve` within its bounds, spawned as a team runs it: reads that
 * run out of time, a copy that goes away and comes back (a SQLite file
 * deleted, a first sync putting a new one in place; a PostgreSQL database
 * that refuses connections), hostile requests that must write nothing, and a
 * PostgreSQL role that can only read.
 */
const sb = useSandbox({ size: 600, seed: 31 });
const TENDERS = '/api/v1/tenders/search';
type Page = { tenders: { id: string }[]; page: { nextCursor: string | null } };

async function sync(db: string): Promise<string> {
  const r = await runCli(['sync', 'deu', '-c', 'DEU', '--db', db], sb.url);
  expect(r.code, r.stderr).toBe(0);
  return db;
}


async function ids(url: string, body: Record<string, unknown>): Promise<Page> {
  const r = await post(url, TENDERS, body);
  expect(r.status, r.text).toBe(200);
  return parseJson(r.text) as Page;
}

/** A 503 with Retry-After and a {"message"} matching `message`. */
function expect503(r: { status: number; text: string; headers: Headers }, message: RegExp): void {
  expect(r.status, r.text).toBe(503);
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  expect((parseJson(r.text) as { message: string }).message).toMatch(message);
}

/** Requests an attacker would try: SQL in q, ids, sync names and cursors, ATTACH, PRAGMA, `;`. */
const HOSTILE = [
  "x'); DROP TABLE tenders; --",
  "ATTACH DATABASE 'owned.db' AS owned",
  'PRAGMA query_only = OFF; DELETE FROM tenders',
  '"; DELETE FROM tenders; --',
  "1; UPDATE tenders SET doc = '{}'",
];

async function hostileRequests(url: string): Promise<void> {
  for (const text of HOSTILE) {
    for (const body of [{ q: text }, { sync: text }, { cursor: text }, { q: `"${text}"` }]) {
      const r = await post(url, TENDERS, body);
      expect([200, 400], r.text).toContain(r.status);
    }
    const org = await post(url, `/api/v1/organisations/${encodeURIComponent(text)}/tenders/search`, {});
    expect([400, 404]).toContain(org.status);
    expect([200, 400, 404]).toContain((await fetch(`${url}/tenders/${encodeURIComponent(text)}`)).status);
    expect([200, 400]).toContain((await fetch(`${url}/?q=${encodeURIComponent(text)}`)).status);
  }
}

describe('tenders serve within its bounds, over a SQLite copy', () => {
  it('a request past --query-timeout is 503 with Retry-After; the server answers on', async () => {
    const db = await sync(join(testDir(), 'copy.db'));
    await withReplica(['--db', db, '-q', '--query-timeout', '1ms'], async (replica) => {
      expect503(await post(replica.url, TENDERS, { q: 'a* OR e* OR i* OR o* OR s*', exactTotal: true, limit: 100, sortBy: 'estimatedValue' }), /--query-timeout/);
      expect((await fetch(`${replica.url}/healthz`)).status).toBe(200);
    });
    const bad = await runCli(['serve', '--db', db, '--query-timeout', 'soon'], undefined);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/^tenders: --query-timeout takes a time such as 500ms/)]);
    const late = await runCli(['serve', '--db', db, '--headers-timeout', '40s'], undefined);
    expect([late.code, late.stderr]).toEqual([2, expect.stringMatching(/^tenders: --headers-timeout cannot be longer than --request-timeout/)]);
  });

  it('a statement that runs long holds nothing: /healthz and other searches are answered meanwhile, and it is 503 at its time', async () => {
    const db = join(testDir(), 'big.db');
    await syncInto(db, 'all', sandboxDocs(new Sandbox(30_000, 5)));
    // Seventeen prefixes: nearly every tender matches each, ranked and counted exactly (seconds, several times the limit).
    const slowBody = { q: 'a* OR b* OR c* OR d* OR e* OR f* OR g* OR h* OR i* OR l* OR m* OR n* OR o* OR p* OR r* OR s* OR t*', exactTotal: true, limit: 100, sortBy: 'estimatedValue' };
    await withReplica(['--db', db, '-q', '--query-timeout', '1s'], async (replica) => {
      const answered: string[] = [];
      const slow = post(replica.url, TENDERS, slowBody).then((r) => {
        answered.push('slow');
        return r;
      });
      expect((await fetch(`${replica.url}/healthz`)).status).toBe(200);
      answered.push('healthz');
      expect((await ids(replica.url, { limit: 5 })).tenders).toHaveLength(5);
      answered.push('search');
      expect503(await slow, /--query-timeout/);
      expect(answered).toEqual(['healthz', 'search', 'slow']);
      // Its thread was ended and another started: the server answers on while the statement finishes in the background.
      expect((await ids(replica.url, { limit: 5, sortBy: 'deadline' })).tenders).toHaveLength(5);
      expect((await fetch(`${replica.url}/healthz`)).status).toBe(200);
    });
  });

  it('a copy deleted is 503 and /readyz 503; a first sync that makes a new copy is served without restart, a cursor of before paging on', async () => {
    const db = await sync(join(testDir(), 'copy.db'));
    await withReplica(['--db', db, '-q'], async (replica) => {
      const all = (await ids(replica.url, { limit: 100 })).tenders.map((t) => t.id);
      const first = await ids(replica.url, { limit: 10 });
      rmSync(db);
      expect503(await post(replica.url, TENDERS, { limit: 10 }), /not there/);
      expect((await fetch(`${replica.url}/readyz`)).status).toBe(503);
      await sync(db);
      const next = await ids(replica.url, { limit: 10, cursor: first.page.nextCursor });
      expect(next.tenders.map((t) => t.id)).toEqual(all.slice(10, 20));
      expect((await fetch(`${replica.url}/readyz`)).status).toBe(200);
    });
  });

  it('hostile q, ids, sync names and cursors write nothing: the file keeps its bytes and its time', async () => {
    const db = await sync(join(testDir(), 'copy.db'));
    const digest = () => createHash('sha256').update(readFileSync(db)).digest('hex');
    const before = { bytes: digest(), mtime: statSync(db).mtimeMs };
    await withReplica(['--db', db, '-q'], async (replica) => {
      await hostileRequests(replica.url);
      expect({ bytes: digest(), mtime: statSync(db).mtimeMs }).toEqual(before);
      expect((await ids(replica.url, { limit: 1 })).tenders).toHaveLength(1);
    });
    // The server's working directory is this one: an ATTACH that ran would have made the file here.
    expect(() => statSync('owned.db')).toThrow();
  });
});

describe.skipIf(POSTGRES_MISSING)('tenders serve within its bounds, over a PostgreSQL copy', () => {
  /** Runs `sql` as the cluster's owner in the copy's database. */
  async function admin(url: string, ...sql: string[]): Promise<void> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const s of sql) await client.query(s);
    } finally {
      await client.end();
    }
  }

  it('statement_timeout bounds a request (503); a database that refuses connections is 503 until it takes them again', async () => {
    const url = await sync(await (await postgres()).createDatabase('limits'));
    const name = new URL(url).pathname.slice(1);
    await withReplica(['--db', url, '-q', '--query-timeout', '1ms'], async (replica) => {
      expect503(await post(replica.url, TENDERS, { q: 'a* OR e* OR i* OR o* OR s*', exactTotal: true, limit: 100 }), /--query-timeout/);
    });
    await withReplica(['--db', url, '-q'], async (replica) => {
      expect((await ids(replica.url, { limit: 5 })).tenders).toHaveLength(5);
      // As a restart does to the server's sessions, and then no new one until it is back.
      await admin(url.replace(`/${name}`, '/postgres'), `ALTER DATABASE ${name} ALLOW_CONNECTIONS false`, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`);
      expect503(await post(replica.url, TENDERS, { limit: 5 }), /cannot be read/);
      expect((await fetch(`${replica.url}/readyz`)).status).toBe(503);
      await admin(url.replace(`/${name}`, '/postgres'), `ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      expect((await ids(replica.url, { limit: 5 })).tenders).toHaveLength(5);
      expect(replica.stderr()).not.toContain(new URL(url).password);
    });
  });

  it('serves through a role that may only SELECT, and hostile requests change nothing', async () => {
    const url = await sync(await (await postgres()).createDatabase('reader'));
    const name = new URL(url).pathname.slice(1);
    const role = `${name}_reader`;
    await admin(
      url,
      `CREATE ROLE ${role} LOGIN PASSWORD 'read-only'`,
      `GRANT CONNECT ON DATABASE ${name} TO ${role}`,
      `GRANT USAGE ON SCHEMA public TO ${role}`,
      `GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role}`,
    );
    const reader = new URL(url);
    reader.username = role;
    reader.password = 'read-only';
    const count = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query<{ n: string; c: string }>('SELECT (SELECT count(*) FROM tenders) AS n, (SELECT count(*) FROM changes) AS c');
      await client.end();
      return rows[0];
    };
    const before = await count();
    await withReplica(['--db', reader.href, '-q'], async (replica) => {
      expect((await ids(replica.url, { limit: 5, q: 'a*' })).tenders.length).toBeGreaterThan(0);
      await hostileRequests(replica.url);
    });
    expect(await count()).toEqual(before);
  });
});
