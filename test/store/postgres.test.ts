import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import type { JsonObject } from '../../src/model/exact-json.js';
import { EXIT, exitCodeOf, RunError, UsageError } from '../../src/errors.js';
import type { LocalSelection } from '../../src/model/local-selection.js';
import { Store as Sandbox } from '../../src/sandbox/store.js';
import { lockKey } from '../../src/store/postgres-lock.js';
import { migrate, MIGRATIONS, SCHEMA_VERSION, schemaVersion, type Migration } from '../../src/store/postgres-schema.js';
import type { Store } from '../../src/store/store.js';
import { postgres, postgresBin, POSTGRES_MISSING, interruptWhileWaiting, whileLocked, type PostgresServer } from '../support/postgres.js';
import { all, letters, open, sqliteEngine, sync } from './engines.js';

function docs(size: number, seed: number): Record<string, unknown>[] {
  return [...new Sandbox(size, seed).rows()].map((row) => parseJson(row.json) as Record<string, unknown>);
}

/** psql's answer to `sql` (it must succeed). */
function psql(url: string, sql: string): string {
  const result = spawnSync(join(postgresBin()!, 'psql'), [url, '-X', '-At', '-v', 'ON_ERROR_STOP=1', '-c', sql], { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout.trim();
}

const TABLES = ['meta', 'tenders', 'syncs', 'sync_tenders', 'runs', 'changes', 'watches', 'watch_tenders', 'tender_cpv', 'serve_secret'];
/** Every row of every table, as psql reads them (one psql for all of them). */
const dump = (url: string) =>
  psql(url, `${TABLES.map((t) => `SELECT '${t}', md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) FROM ${t} x`).join(' UNION ALL ')} ORDER BY 1`);

async function refusal(location: string, mode: 'read' | 'write' = 'write', extra = {}): Promise<Error> {
  const err = (await open(location, mode, extra).then(
    (store) => store.close().then(() => undefined),
    (e: unknown) => e,
  )) as Error | undefined;
  expect(err, 'refused').toBeInstanceOf(Error);
  return err!;
}

describe.skipIf(POSTGRES_MISSING)('the PostgreSQL store', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await postgres();
  });

  describe('connecting', () => {
    it('never prints the password: not in status().location, not in any refusal', async () => {
      const url = await server.createDatabase('secret');
      const store = await open(url);
      const { location } = await store.status();
      await store.close();
      expect(location).toBe(url.replace(`:${encodeURIComponent(server.password)}@`, '@'));
      const base = `postgres://${server.user}:${encodeURIComponent(server.password)}@127.0.0.1:${server.port}`;
      const wrong = `postgres://${server.user}:${encodeURIComponent(`${server.password}x`)}@127.0.0.1:${server.port}/postgres`;
      for (const bad of [wrong, `${base}/no_such_db`, url.replace(`:${server.port}/`, ':1/')]) {
        const err = await refusal(bad);
        for (const secret of [server.password, encodeURIComponent(server.password), `${server.password}x`]) expect(err.message).not.toContain(secret);
      }
      // The password as a parameter, which pg reads too.
      const parameter = `postgres://${server.user}@127.0.0.1:${server.port}/${new URL(url).pathname.slice(1)}?password=${encodeURIComponent(server.password)}`;
      const byParameter = await open(parameter);
      expect((await byParameter.status()).location).toBe(`postgres://${server.user}@127.0.0.1:${server.port}/${new URL(url).pathname.slice(1)}`);
      await byParameter.close();
      const refused = await refusal(parameter.replace(encodeURIComponent(server.password), 'wrong-pw'));
      expect(refused.message).toMatch(/refused the login/);
      expect(refused.message).not.toContain('wrong-pw');
    });

    it('a short password does not garble the server\'s words, and one with @ is gone from a URL that does not parse', async () => {
      const url = await server.createDatabase('short');
      const role = `short_${process.pid}`;
      psql(url, `CREATE ROLE ${role} LOGIN PASSWORD 'a'`);
      const err = await refusal(`postgres://${role}:a@127.0.0.1:${server.port}/no_such_database`);
      expect(err.message).toMatch(/database "no_such_database" does not exist: create it/);
      expect(err.message).not.toContain('*');
      const unparsed = await refusal('postgres://u:p@ssWORD@127.0.0.1:badport/db');
      expect(unparsed).toBeInstanceOf(UsageError);
      expect(unparsed.message).toMatch(/^postgres:\/\/u@127\.0\.0\.1:badport\/db is not a PostgreSQL URL/);
    });

    it('without ?schema=, the copy is in the schema the first login finds, and every later connection uses it though the search_path would now find another', async () => {
      const url = await server.createDatabase('pinned');
      const tenders = docs(20, 8);
      const writer = await open(url);
      try {
        await sync(writer, 'all', tenders);
      } finally {
        await writer.close();
      }
      expect(psql(url, 'SELECT count(*) FROM public.tenders')).toBe('20');
      const store = await open(url, 'read', { connections: 4 });
      try {
        // A schema named as the user comes first in the default search_path ("$user", public): made now, with an empty
        // tenders table, a new login that went by the search_path would read that one.
        psql(url, `CREATE SCHEMA "${server.user}"; CREATE TABLE "${server.user}".tenders (LIKE public.tenders)`);
        // Four snapshots hold four connections at once: three of them logged in after the schema was made.
        const views = await Promise.all([0, 1, 2, 3].map(() => store.snapshot()));
        try {
          const found = await Promise.all(views.map((view, i) => view.getTender(tenders[i]!.id as string)));
          expect(found.map((f) => f?.tender.id)).toEqual(tenders.slice(0, 4).map((t) => t.id));
        } finally {
          await Promise.all(views.map((view) => view.close()));
        }
      } finally {
        await store.close();
      }
    });

    it('a writer that owns its schema and may not create schemas in the database syncs into it', async () => {
      const url = await server.createDatabase('owner');
      const role = `writer_${process.pid}`;
      psql(url, `CREATE ROLE ${role} LOGIN PASSWORD 'writer-pw'; CREATE SCHEMA team AUTHORIZATION ${role}; REVOKE CREATE ON DATABASE ${new URL(url).pathname.slice(1)} FROM PUBLIC`);
      const writer = new URL(url);
      writer.username = role;
      writer.password = 'writer-pw';
      writer.searchParams.set('schema', 'team');
      const store = await open(writer.href);
      try {
        expect((await sync(store, 'all', docs(30, 3))).counts.new).toBe(30);
      } finally {
        await store.close();
      }
      expect(psql(url, 'SELECT count(*) FROM team.tenders')).toBe('30');
      // Elsewhere it still needs the right to create the schema, and says so.
      writer.searchParams.set('schema', 'other');
      expect((await refusal(writer.href)).message).toMatch(/\?schema=other: not allowed: permission denied for database/);
    });

    it('refuses schema names tenders cannot keep its tables in as usage errors, before connecting', async () => {
      for (const schema of ['', 'pg_catalog', 'pg_tenders', 'x'.repeat(64)]) {
        const err = await refusal(`postgres://u@127.0.0.1:1/db?schema=${schema}`);
        expect(err, schema).toBeInstanceOf(UsageError);
        expect(err.message).toMatch(/is not a schema tenders can keep its tables in/);
      }
    });

    it('a password with a bare % (a URL parser lets it through) is not an unexpected error', async () => {
      const err = await refusal('postgres://u:100%@127.0.0.1:1/db');
      expect(err).toBeInstanceOf(RunError);
      expect(err.message).toMatch(/^postgres:\/\/u@127\.0\.0\.1:1\/db: cannot reach the PostgreSQL server/);
    });

    it('an unreachable server, a refused login, a missing database: one line, a run error (exit 1)', async () => {
      const url = await server.createDatabase('refuse');
      const cases: [string, RegExp][] = [
        [url.replace(`:${server.port}/`, ':1/'), /^postgres:\/\/tenders_test@127\.0\.0\.1:1\/\w+: cannot reach the PostgreSQL server: .*ECONNREFUSED.*\(3 attempts\)$/],
        [url.replace(encodeURIComponent(server.password), 'wrong'), /the server refused the login: password authentication failed/],
        [url.replace(/\/\w+$/, '/no_such_db'), /database "no_such_db" does not exist: create it/],
      ];
      for (const [location, message] of cases) {
        const err = await refusal(location);
        expect(err, location).toBeInstanceOf(RunError);
        expect(exitCodeOf(err)).toBe(EXIT.failure);
        expect(err.message).toMatch(message);
        expect(err.message).not.toContain('\n');
      }
      // Only what may pass is tried again.
      expect((await refusal(cases[1]![0])).message).not.toMatch(/attempts/);
    });

    it('takes the user and password from PGUSER and PGPASSWORD of the environment it is given, never the process\'s', async () => {
      const url = await server.createDatabase('env');
      const bare = url.replace(/\/\/[^@]+@/, '//');
      const store = await open(bare, 'write', { env: { PGUSER: server.user, PGPASSWORD: server.password } });
      await sync(store, 's', docs(5, 1));
      expect((await store.status()).location).toBe(bare);
      await store.close();
      expect(psql(url, 'SELECT count(*) FROM tenders')).toBe('5');
      // The process's own variables are not read: only the given environment counts.
      process.env.PGPASSWORD = server.password;
      try {
        const err = await refusal(bare, 'read', { env: { PGUSER: server.user } });
        expect(err.message).toMatch(/the server asks for a password, and none was given/);
      } finally {
        delete process.env.PGPASSWORD;
      }
    });

    it('takes everything from PGHOST, PGPORT, PGDATABASE, PGUSER and a password file (PGPASSFILE, as ~/.pgpass) of its environment', async () => {
      const url = await server.createDatabase('pgpass');
      const database = new URL(url).pathname.slice(1);
      const dir = mkdtempSync(join(tmpdir(), 'tenders-pgpass-'));
      const line = `127.0.0.1:${server.port}:${database}:${server.user}:${server.password.replace(/[:\\]/g, '\\$&')}\n`;
      writeFileSync(join(dir, 'pgpass'), line, { mode: 0o600 });
      writeFileSync(join(dir, '.pgpass'), line, { mode: 0o600 });
      const warnings: Error[] = [];
      const warned = (warning: Error) => warnings.push(warning);
      process.on('warning', warned);
      const where = { PGHOST: '127.0.0.1', PGPORT: String(server.port), PGDATABASE: database, PGUSER: server.user };
      try {
        const store = await open('postgres://', 'write', { env: { ...where, PGPASSFILE: join(dir, 'pgpass') } });
        await sync(store, 's', docs(3, 1));
        await store.close();
        // Without PGPASSFILE: ~/.pgpass, HOME as the environment says.
        const reader = await open('postgres://', 'read', { env: { ...where, HOME: dir } });
        expect((await reader.count({})).total).toBe(3);
        await reader.close();
      } finally {
        process.off('warning', warned);
      }
      // pg's own reading of the file prints a deprecation warning on stderr; ours does not.
      expect(warnings.map((w) => w.message)).toEqual([]);
      expect(psql(url, 'SELECT count(*) FROM tenders')).toBe('3');
    });

    it('keeps its tables only in the schema ?schema= (or the option) names, creating it; reading creates nothing', async () => {
      const url = await server.createDatabase('schema');
      const err = await refusal(`${url}?schema=team_a`, 'read');
      expect(err).toBeInstanceOf(RunError);
      expect(err.message).toMatch(/run tenders sync first/);
      expect(psql(url, "SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'team_a'")).toBe('0');

      const a = await open(`${url}?schema=team_a`);
      await sync(a, 's', docs(10, 1));
      expect((await a.status()).location).toMatch(/\?schema=team_a$/);
      await a.close();
      const b = await open(url, 'write', { schema: 'Team B' });
      await sync(b, 's', docs(3, 2));
      await b.close();
      const tables = psql(url, "SELECT table_schema || '.' || table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1");
      expect(tables.split('\n')).toEqual([...TABLES.map((t) => `Team B.${t}`), ...TABLES.map((t) => `team_a.${t}`)].sort());
      expect(psql(url, 'SELECT count(*) FROM team_a.tenders')).toBe('10');
      expect(psql(url, 'SELECT count(*) FROM "Team B".tenders')).toBe('3');
      // The URL's schema wins over the option.
      const c = await open(`${url}?schema=team_a`, 'read', { schema: 'Team B' });
      expect((await c.count({})).total).toBe(10);
      await c.close();
    });

    it('refuses tables of a newer schema version, and another program\'s tables, as usage errors, changing nothing', async () => {
      const url = await server.createDatabase('newer');
      const made = await open(url);
      await sync(made, 's', docs(3, 1));
      await made.close();
      psql(url, `UPDATE meta SET value = '${SCHEMA_VERSION + 1}' WHERE key = 'schema_version'`);
      const before = dump(url);
      for (const mode of ['write', 'read'] as const) {
        const err = await refusal(url, mode);
        expect(err).toBeInstanceOf(UsageError);
        expect(err.message).toContain(`newer tenders (schema version ${SCHEMA_VERSION + 1}; this one knows up to ${SCHEMA_VERSION})`);
      }
      expect(dump(url)).toBe(before);
      const other = await server.createDatabase('other');
      psql(other, 'CREATE TABLE things (a int)');
      expect((await refusal(other)).message).toMatch(/tables of another program/);
    });

    it('upgrades older tables in place, one transaction per version, keeping their rows', async () => {
      const url = await server.createDatabase('upgrade');
      const store = await open(url);
      await sync(store, 's', docs(5, 1));
      await store.close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const next: Migration[] = [...MIGRATIONS, async (c) => void (await c.query('ALTER TABLE syncs ADD COLUMN note text'))];
        await migrate(client, 'public', lockKey('public', 'migrate'), next);
        expect(await schemaVersion(client, 'public')).toBe(next.length);
        // A step that fails leaves the tables at the version before it.
        const failing: Migration[] = [...next, async (c) => void (await c.query('ALTER TABLE syncs ADD COLUMN x text; SELECT * FROM no_such_table'))];
        await expect(migrate(client, 'public', lockKey('public', 'migrate'), failing)).rejects.toThrow(/no_such_table/);
        expect(await schemaVersion(client, 'public')).toBe(next.length);
        expect(psql(url, "SELECT name, note FROM syncs")).toBe('s|');
        expect(psql(url, "SELECT count(*) FROM information_schema.columns WHERE table_name = 'syncs' AND column_name = 'x'")).toBe('0');
      } finally {
        await client.end();
      }
    });

    it('upgrades a version 1 copy: tenders.last_seen goes (sync_tenders keeps it), doc is made from doc_text, rows and changes stay, the next run records changes once', async () => {
      const url = await server.createDatabase('v1');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await migrate(client, 'public', lockKey('public', 'migrate'), MIGRATIONS.slice(0, 1));
      } finally {
        await client.end();
      }
      const now = "'2026-11-01T00:00:00Z'";
      psql(url, `INSERT INTO tenders (id, title, doc, doc_text, tsv, first_seen, last_seen) VALUES ('A', 'Old', '{"id":"A","title":"Old"}', '{"id":"A","title":"Old"}', '', ${now}, ${now});
        INSERT INTO syncs (name, query, service, created, last_run, last_complete) VALUES ('s', '{}', 'http://127.0.0.1:1', ${now}, 1, ${now});
        INSERT INTO runs (sync, query, service, mode, baseline, started, ended, complete, pages, requests, new, changed, gone, unchanged, seen, repeated, without_id)
          VALUES ('s', '{}', 'http://127.0.0.1:1', 'full', true, ${now}, ${now}, true, 1, 1, 0, 0, 0, 1, 1, 0, 0);
        INSERT INTO sync_tenders (sync, id, first_seen, last_seen) VALUES ('s', 'A', ${now}, ${now})`);
      expect((await refusal(url, 'read')).message).toMatch(/older schema \(version 1\): run tenders sync to upgrade it/);
      // A dry run or a list reads the syncs' definitions as they are, upgrading nothing.
      const definitions = await open(url, 'read', { definitionsOnly: true });
      expect(await definitions.getSync('s')).toMatchObject({ name: 's', service: 'http://127.0.0.1:1', tenders: 1 });
      expect((await definitions.listSyncs()).map((sync) => sync.name)).toEqual(['s']);
      await definitions.close();
      expect(psql(url, "SELECT value FROM meta WHERE key = 'schema_version'")).toBe('1');
      const store = await open(url);
      expect(psql(url, "SELECT string_agg(column_name, ',' ORDER BY column_name) FROM information_schema.columns WHERE table_name = 'tenders' AND column_name LIKE '%seen'")).toBe('first_seen');
      // Version 3: the server makes doc from doc_text, for the rows there and every row written after.
      expect(psql(url, "SELECT is_generated, generation_expression FROM information_schema.columns WHERE table_name = 'tenders' AND column_name = 'doc'")).toBe('ALWAYS|(doc_text)::jsonb');
      expect(psql(url, "SELECT doc ->> 'title' FROM tenders")).toBe('Old');
      const receipt = await sync(store, 's', [{ id: 'A', title: 'New' }]);
      await store.close();
      expect(receipt.counts).toMatchObject({ changed: 1, new: 0 });
      expect(psql(url, "SELECT field, old, new FROM changes")).toBe('title|"Old"|"New"');
      expect(psql(url, "SELECT doc ->> 'title' FROM tenders")).toBe('New');
      expect(psql(url, "SELECT last_seen > first_seen FROM sync_tenders")).toBe('t');
      expect(psql(url, "SELECT value FROM meta WHERE key = 'schema_version'")).toBe(String(SCHEMA_VERSION));
      expect(psql(url, "SELECT reloptions FROM pg_class WHERE relname = 'sync_tenders'")).toBe('{fillfactor=70}');
    });

    it('opens at most `connections` connections at once', async () => {
      const url = await server.createDatabase('pool');
      const store = await open(url, 'write', { connections: 2 });
      await sync(store, 's', docs(600, 3));
      const database = new URL(url).pathname.slice(1);
      const backends = () => Number(psql(url, `SELECT count(*) FROM pg_stat_activity WHERE datname = '${database}' AND application_name = 'tenders'`));
      const one = store.select({})[Symbol.asyncIterator]();
      const two = store.select({})[Symbol.asyncIterator]();
      await one.next();
      await two.next();
      let third = false;
      const waiting = store.count({}).then((c) => ((third = true), c));
      expect(backends()).toBe(2);
      expect(third).toBe(false);
      await one.return(undefined);
      expect((await waiting).total).toBe(600);
      await two.return(undefined);
      await store.close();
    });
  });

  it("a new copy's first sync leaves the planner its tables' statistics (its first reads are planned as later ones)", async () => {
    const url = await server.createDatabase('analysed');
    const store = await open(url);
    try {
      await sync(store, 'all', docs(120, 5));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        // reltuples is -1 for a table never analysed (PostgreSQL 14 and later); ANALYZE sets it in the sync's transaction.
        const { rows } = await client.query<{ relname: string; reltuples: number }>(
          "SELECT relname, reltuples FROM pg_class WHERE relname IN ('tenders', 'sync_tenders', 'tender_cpv') AND relkind = 'r' ORDER BY relname",
        );
        expect(rows.map((r) => [r.relname, r.reltuples > 0])).toEqual([
          ['sync_tenders', true],
          ['tender_cpv', true],
          ['tenders', true],
        ]);
      } finally {
        await client.end();
      }
    } finally {
      await store.close();
    }
  });

  describe('same answers as SQLite on the same data', () => {
    let pgStore: Store;
    let sqlite: Store;
    let cleanup: () => Promise<void>;
    const exotic = [
      { id: 'E-1', title: 'Nettoyage des écoles – Lyon', publicationDate: '2026-02-01', buyer: { name: 'Mairie de Lyon', country: 'FRA' } },
      { id: 'E-2', title: 'Road-maintenance lot_2 (A7)', publicationDate: '2026-02-01', buyer: { name: 'Ünterföhring', country: 'DEU' } },
      { id: 'e-3', title: 'ROAD maintenance 2026', publicationDate: '2026-02-01', buyer: { name: 'Zürich', country: 'CHE' }, deadline: '2027-01-01' },
      { id: 'É-4', title: 'Ärztliche Versorgung', publicationDate: '2026-02-01T10:00:00+02:00', buyer: { name: 'Åre kommun', country: 'SWE' } },
      // Dates outside the years 0001-9999 once in UTC, which PostgreSQL's timestamps do not all hold: no date in either engine.
      { id: 'E-5', title: 'Year zero', publicationDate: '0000-06-01', deadline: '0001-01-01T00:30:00+01:00' },
      { id: 'E-6', title: 'Year ten thousand', publicationDate: '9999-12-31T23:00:00-05:00', deadline: '0001-01-01' },
      // A dot path steps into objects only: a key of digits is a key, never an index into an array.
      { id: 'E-7', title: 'Arrays and digit keys', newfield: { a: [1, 2, { b: null }] }, o: { '0': 'zero', 1: [5] } },
    ];
    beforeAll(async () => {
      const file = await sqliteEngine.location();
      cleanup = file.cleanup;
      sqlite = await open(file.location);
      pgStore = await open(await server.createDatabase('same'));
      const tenders = [...docs(500, 21), ...exotic];
      await sync(sqlite, 'all', tenders);
      await sync(pgStore, 'all', tenders);
    });
    afterAll(async () => {
      await sqlite?.close();
      await pgStore?.close();
      await cleanup?.();
    });

    const selections: LocalSelection[] = [
      {},
      { sortBy: 'deadline' },
      { sortBy: 'estimatedValue', sortOrder: 'asc' },
      { words: 'road maintenance' },
      { words: '"road maintenance"' },
      { words: 'ecoles' },
      { words: 'ECOLES OR zurich' },
      { words: 'arztlich*' },
      { words: 'lot_2' },
      { words: 'clean* NOT services' },
      { words: '(road OR cleaning) AND lyon' },
      { words: 'road AND (maintenance OR cleaning) NOT lyon' },
      { words: '"road maintenance"*' },
      { words: 'road + maintenance' },
      { words: 'Ärztliche zürich OR ROAD' },
      { words: 'lyon mairie' },
      // Beside a phrase of no letters or digits (dropped there, as FTS5 drops it), and text folded as unicode61 folds it.
      { words: 'Supply of 🚑 ambulances' },
      { words: 'school €' },
      { words: '"" hospital' },
      { words: 'Αναβάθμιση οδικού δικτύου Θεσσαλονίκης — φάση Β΄' },
      { words: 'θεσσαλονικης OR Θεσσαλονίκης' },
      { words: 'hospital AND ""' },
      { words: 'hospital OR "" OR —' },
      { words: '*reads' },
      { countries: ['FRA', 'DEU'], statuses: ['open'], minValueEur: 1000 },
      { publishedSince: '2026-02-01T00:00:00.000Z', publishedUntil: '2026-06-01T00:00:00.000Z', sortBy: 'publicationDate', sortOrder: 'asc' },
      { sortBy: 'publicationDate', sortOrder: 'asc' },
      { sortBy: 'deadline', sortOrder: 'asc' },
      { publishedUntil: '2000-01-01T00:00:00.000Z' },
      { deadlineBefore: '1000-01-01T00:00:00.000Z' },
    ];
    it('a new copy\'s first run leaves every page of tenders all-visible: readers after it fetch no row an index answers', async () => {
      const url = await server.createDatabase('frozen');
      const store = await open(url);
      try {
        await sync(store, 'all', docs(3000, 5));
      } finally {
        await store.close();
      }
      const [pages, visible] = psql(url, "SELECT relpages, relallvisible FROM pg_class WHERE oid = 'tenders'::regclass").split('|').map(Number);
      expect(pages).toBeGreaterThan(10);
      expect(visible).toBe(pages);
      const plan = psql(url, "SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT status FROM tenders WHERE gone_at IS NULL AND status > ''");
      expect(plan).toMatch(/Index Only Scan/);
      expect(plan).toMatch(/Heap Fetches: 0/);
    });

    it('selects the same tenders in the same order, and counts them alike', async () => {
      for (const selection of selections) {
        const [a, b] = await Promise.all([all(sqlite.select(selection)), all(pgStore.select(selection))]);
        expect(b.map((t) => t.id), JSON.stringify(selection)).toEqual(a.map((t) => t.id));
        expect(b).toEqual(a);
        expect(await pgStore.count(selection)).toEqual(await sqlite.count(selection));
      }
      for (const path of ['buyer.name', 'status', 'estimatedValue', 'procedure', 'buyer.country', 'o.0', 'o.1', 'newfield.a']) {
        expect(await pgStore.count({}, path), path).toEqual(await sqlite.count({}, path));
      }
      for (const path of ['newfield.a.0', 'newfield.a.2.b', 'o.1.0', 'newfield.a.+0', 'newfield.a. 1', 'o.1.-0']) {
        const [x, y] = await Promise.all([sqlite.count({}, path).catch((e: unknown) => e), pgStore.count({}, path).catch((e: unknown) => e)]);
        expect(x, path).toBeInstanceOf(UsageError);
        expect(y, path).toBeInstanceOf(UsageError);
      }
      for (const bad of ['"open', 'AND', 'road (', 'covid-19', 'a OR', '(a OR b) c', '(a) b', 'x (y)', '* x', 'a:b', 'NEAR(a b, x)']) {
        const [x, y] = await Promise.all([sqlite.count({ words: bad }).catch((e: unknown) => e), pgStore.count({ words: bad }).catch((e: unknown) => e)]);
        expect(x, bad).toBeInstanceOf(UsageError);
        expect(y, bad).toBeInstanceOf(UsageError);
      }
    });
  });

  describe('writers, readers and killed runs', () => {
    let child: string;
    beforeAll(async () => {
      child = join(mkdtempSync(join(tmpdir(), 'tenders-pg-run-')), 'killed-pg-run.cjs');
      await build({
        entryPoints: [resolve('test/store/fixtures/killed-pg-run.ts')],
        outfile: child,
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
        external: ['pg', 'pg-copy-streams', 'better-sqlite3'],
        logLevel: 'error',
      });
    });

    /** Starts the child; resolves once it prints `phase` (it then holds its run until killed). */
    function runUntil(url: string, phase: 'stage' | 'commit' | 'queued', size: number, seed: number): Promise<ChildProcess> {
      return new Promise((done, fail) => {
        const proc = spawn(process.execPath, [child, url, phase, String(size), String(seed)], {
          env: { ...process.env, NODE_PATH: resolve('node_modules') },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stderr = '';
        proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        proc.stdout!.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes(phase)) done(proc);
        });
        proc.on('exit', (code, signal) => fail(new Error(`child ended ${code ?? signal}: ${stderr}`)));
      });
    }

    /** SIGKILL, then wait until the server has ended the child's connection (its lock and transaction with it). */
    async function kill(proc: ChildProcess, url: string): Promise<void> {
      const exited = new Promise((done) => proc.once('exit', done));
      proc.kill('SIGKILL');
      await exited;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        // The server notices the closed socket on its own; this waits for that event (no fixed delay).
        for (;;) {
          const { rows } = await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE $1", [`tenders ${proc.pid} %`]);
          if (rows[0].n === 0) return;
          await admin.query('SELECT pg_sleep(0.05)');
        }
      } finally {
        await admin.end();
      }
    }

    it('a second run of a sync in another process fails at once naming the holder; other names proceed', async () => {
      const url = await server.createDatabase('lock');
      const store = await open(url);
      await sync(store, 'first', docs(5, 1));
      const proc = await runUntil(url, 'stage', 50, 1);
      try {
        const err = await store.beginRun({ sync: { name: 'killed', query: {}, service: 'http://127.0.0.1:1' }, mode: 'full' }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(RunError);
        expect((err as Error).message).toMatch(new RegExp(`^sync 'killed' is running already: pid ${proc.pid} on \\S+, since \\d{4}-\\d\\d-\\d\\dT`));
        await sync(store, 'other', docs(20, 2));
        // Another schema is another copy: the same name is free there.
        const elsewhere = await open(`${url}?schema=elsewhere`);
        await (await elsewhere.beginRun({ sync: { name: 'killed', query: {}, service: 'u' }, mode: 'full' })).abort();
        await elsewhere.close();
      } finally {
        await kill(proc, url);
      }
      // Its connection gone, the lock is free.
      await sync(store, 'killed', docs(20, 3));
      await store.close();
    });

    it('a run killed while its commit waits behind another commit frees its lock within a second, and the next run takes it', async () => {
      const url = await server.createDatabase('queued');
      const store = await open(url);
      await sync(store, 'first', docs(5, 1));
      const other = new pg.Client({ connectionString: url });
      await other.connect();
      await other.query('SELECT pg_advisory_lock($1::bigint)', [lockKey('public', 'commit')]); // as another sync's commit would
      try {
        const proc = await runUntil(url, 'queued', 50, 2);
        const exited = new Promise((done) => proc.once('exit', done));
        proc.kill('SIGKILL');
        await exited;
        // Its server connection is still waiting in its commit: the server notices it is gone (client_connection_check_interval).
        const run = await store.beginRun({ sync: { name: 'killed', query: {}, service: 'http://127.0.0.1:1' }, mode: 'full' });
        await run.abort();
      } finally {
        await other.end();
      }
      await store.close();
    });

    it('an interruption while the commit waits behind another commit cancels it: the reason thrown, the copy as it was', async () => {
      const url = await server.createDatabase('cancel');
      const interrupt = new AbortController();
      const store = await open(url, 'write', { signal: interrupt.signal });
      await sync(store, 'first', docs(5, 1));
      const before = dump(url);
      const other = new pg.Client({ connectionString: url });
      await other.connect();
      await other.query('SELECT pg_advisory_lock($1::bigint)', [lockKey('public', 'commit')]);
      try {
        const run = await store.beginRun({ sync: { name: 'second', query: {}, service: 'http://127.0.0.1:1' }, mode: 'full' });
        await run.add(docs(50, 2));
        // Its connection waits for the commit lock (asked without blocking this process, which sends the commit).
        await interruptWhileWaiting(url, interrupt, [run.commit({ complete: true, pages: 1, requests: 1 })]);
      } finally {
        await other.end();
      }
      expect(dump(url)).toBe(before);
      await store.close();
    });

    it('an interruption before the commit is called commits nothing: the reason thrown, the copy as it was', async () => {
      const url = await server.createDatabase('cancelearly');
      const interrupt = new AbortController();
      const store = await open(url, 'write', { signal: interrupt.signal });
      await sync(store, 'first', docs(5, 1));
      const before = dump(url);
      const run = await store.beginRun({ sync: { name: 'second', query: {}, service: 'http://127.0.0.1:1' }, mode: 'full' });
      await run.add(docs(50, 2));
      const reason = new Error('interrupted by SIGTERM');
      interrupt.abort(reason);
      await expect(run.commit({ complete: true, pages: 1, requests: 1 })).rejects.toBe(reason);
      expect(dump(url)).toBe(before);
      await store.close();
    });

    it("a holder on another host whose name begins this host's (cron1 for cron10) is alive as far as tenders can tell: refused at once", async () => {
      const url = await server.createDatabase('otherhost');
      const store = await open(url);
      await sync(store, 'first', docs(5, 1));
      const other = hostname().slice(0, -1);
      const remote = new pg.Client({ connectionString: url, application_name: `tenders 4194303 2026-11-26T07:00:00Z ${other}` });
      await remote.connect();
      await remote.query('SELECT pg_advisory_lock($1::bigint)', [lockKey('public', 'sync remote')]);
      try {
        const err = await store.beginRun({ sync: { name: 'remote', query: {}, service: 'u' }, mode: 'full' }).catch((e: unknown) => e);
        expect((err as Error).message).toBe(`sync 'remote' is running already: pid 4194303 on ${other}, since 2026-11-26T07:00:00Z; try again when it is done`);
      } finally {
        await remote.end();
      }
      await store.close();
    });

    it('a lock held for a process of this host that no longer runs is waited for, then refused saying so', async () => {
      const url = await server.createDatabase('stuck');
      const store = await open(url);
      await sync(store, 'first', docs(5, 1));
      const stuck = new pg.Client({ connectionString: url, application_name: `tenders 4194303 2026-11-26T07:00:00Z ${hostname()}` });
      await stuck.connect();
      await stuck.query('SELECT pg_advisory_lock($1::bigint)', [lockKey('public', 'sync stuck')]);
      try {
        const err = await store.beginRun({ sync: { name: 'stuck', query: {}, service: 'u' }, mode: 'full' }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(RunError);
        expect((err as Error).message).toBe(
          `sync 'stuck' is running already: pid 4194303 on ${hostname()} no longer runs, but its connection still holds the lock until the server ends the statement it was in; try again when it is done`,
        );
      } finally {
        await stuck.end();
      }
      await store.close();
    });

    it('while the first run of a new copy makes it, other names walk, and a commit waits for the copy (bounded), then fails clearly', async () => {
      const url = await server.createDatabase('making');
      const proc = await runUntil(url, 'stage', 300, 1);
      const store = await open(url, 'write', { busyTimeoutMs: 200 });
      try {
        // Nothing of the copy is there before its first run commits.
        expect(psql(url, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")).toBe('0');
        expect(await store.listSyncs()).toEqual([]);
        const run = await store.beginRun({ sync: { name: 'other', query: {}, service: 'http://127.0.0.1:1' }, mode: 'full' });
        await run.add(docs(20, 2));
        const err = await run.commit({ complete: true, pages: 1, requests: 1 }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(RunError);
        expect((err as Error).message).toMatch(/is being made by the first run of another sync, for more than 0\.2 s; try again when it is done$/);
      } finally {
        await kill(proc, url);
      }
      // The first run killed, nothing of it is left; the other sync makes the copy itself.
      expect(psql(url, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")).toBe('0');
      const receipt = await sync(store, 'other', docs(20, 2));
      expect(receipt.counts).toMatchObject({ new: 20, repeated: 0 });
      expect(psql(url, 'SELECT count(*) FROM tenders')).toBe('20');
      await store.close();
    });

    it('a run that starts while another makes the copy compares its pages at commit, once the copy is there', async () => {
      const url = await server.createDatabase('after');
      const a = await open(url);
      const b = await open(url);
      const first = await a.beginRun({ sync: { name: 'a', query: {}, service: 'http://127.0.0.1:1' }, mode: 'full' });
      const shared = docs(30, 1);
      await first.add(shared);
      const second = await b.beginRun({ sync: { name: 'b', query: {}, service: 'http://127.0.0.1:1' }, mode: 'full' });
      // b's pages: a's tenders, ten cancelled, one of them twice (the last counts).
      const cancelled = shared.map((t, i) => (i < 10 ? { ...t, status: 'cancelled' } : t));
      await second.add([shared[0]!, ...cancelled]);
      await first.commit({ complete: true, pages: 1, requests: 1 });
      const receipt = await second.commit({ complete: true, pages: 2, requests: 2 });
      const changed = shared.slice(0, 10).filter((t) => t.status !== 'cancelled');
      // The changes it records are the changes it counts, baseline or not (docs/local-copy-schema.md).
      expect(receipt.counts).toMatchObject({ seen: 31, repeated: 1, new: 30, changed: changed.length });
      const rows = (await all(b.changes({ sync: 'b' }))).filter((c) => c.kind === 'changed');
      expect(rows.map((c) => [c.sync, c.id, c.field, c.new])).toEqual(changed.map((t) => ['b', t.id, 'status', 'cancelled']).sort((x, y) => String(x[1]).localeCompare(String(y[1]))));
      expect((await b.count({ statuses: ['cancelled'] })).total).toBe(cancelled.filter((t) => t.status === 'cancelled').length);
      await a.close();
      await b.close();
    });

    for (const [phase, size] of [
      ['stage', 1200],
      ['commit', 1200],
    ] as const) {
      it(`a run SIGKILLed in its ${phase} leaves every table as it was; readers meanwhile see the copy before it`, { timeout: 180_000 }, async () => {
        const url = await server.createDatabase(`killed_${phase}`);
        const store = await open(url);
        await sync(store, 'killed', docs(500, 5));
        const before = dump(url);
        const ids = (await all(store.select({}))).map((t) => t.id);

        const proc = await runUntil(url, phase, size, 6);
        // The run is under way (in `commit`, its transaction has written tenders, membership and changes).
        expect((await all(store.select({}))).map((t) => t.id)).toEqual(ids);
        expect(psql(url, 'SELECT count(*) FROM tenders')).toBe('500');
        expect(dump(url)).toBe(before);
        await kill(proc, url);

        expect(dump(url)).toBe(before);
        expect(psql(url, "SELECT count(*) FROM pg_tables WHERE schemaname LIKE 'pg_temp%'")).toBe('0');
        const receipt = await sync(store, 'killed', docs(size, 6));
        expect(receipt.counts).toMatchObject({ new: size - 500, changed: 500 });
        expect(Number(psql(url, "SELECT count(*) FROM changes WHERE kind = 'new'"))).toBe(size - 500);
        expect(psql(url, 'SELECT count(*) FROM runs')).toBe('2');
        await store.close();
      });
    }

    const longId = letters(3000);
    const bad = (title: string, id = 'BAD') => ({ id, title, publicationDate: '2026-01-01' });
    it.each([
      ['a NUL character', bad('a\u0000b'), 'BAD'],
      ['an unpaired surrogate', bad('a\ud800b'), 'BAD'],
      ['an id longer than an index holds', bad('Long', longId), `${longId.slice(0, 80)}…`],
      ['a number beyond numeric', parseJson('{"id":"BAD","title":"Big","value":{"amount":[1,1e200000]}}') as Record<string, unknown>, 'BAD'],
    ])('a document PostgreSQL cannot hold (%s) fails its run as one line naming it: the copy as it was, the run\'s receipt saying why', async (_, nul, named) => {
      const url = await server.createDatabase('nul');
      const store = await open(url);
      await sync(store, 's', docs(20, 1));
      // The copy: its tenders, membership and changes (runs and syncs.last_run gain the failed run's receipt).
      const others = () => dump(url).split('\n').filter((line) => !/^(runs|syncs)\|/.test(line));
      const before = others();
      // In the run's first COPY, with more after it: the walk stops at a page after it, and the failure is the run's.
      const err = await sync(store, 's', [nul, ...docs(20_000, 1)], { page: 1000 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RunError);
      expect((err as Error).message).toMatch(/^postgres:\/\/tenders_test@127\.0\.0\.1:\d+\/\w+: tender "[^"]+" cannot be stored in PostgreSQL: /);
      expect((err as Error).message).toContain(`tender ${JSON.stringify(named)} cannot be stored`);
      expect((err as Error).message).not.toContain('\n');
      expect(others()).toEqual(before);
      const [complete, error, pages] = psql(url, 'SELECT complete, error, pages FROM runs ORDER BY run DESC LIMIT 1').split('|');
      expect(complete).toBe('f');
      expect(error).toContain(`tender ${JSON.stringify(named)} cannot be stored`);
      expect(Number(pages)).toBeLessThan(21);
      expect(await store.getSync('s')).toMatchObject({ lastRun: { complete: false } });
      // The failed run released its lock and its connection.
      await sync(store, 's', docs(20, 2));
      await store.close();
    });

    it('a query holding what jsonb cannot (a number beyond numeric, a NUL) is refused before its run begins (exit 2), not at the commit', async () => {
      const url = await server.createDatabase('bigquery');
      const store = await open(url);
      // As the command builds it: the number parsed from --filter, in objects of the CLI's own.
      const query = { org: null, body: { limit: 100, minValue: (parseJson('[1e200000]') as unknown[])[0] } } as JsonObject;
      const err = await store.beginRun({ sync: { name: 's', query, service: 'http://127.0.0.1:1' }, mode: 'full' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message).toBe("the query holds a number beyond the range of PostgreSQL's numeric (1e200000): a PostgreSQL copy cannot keep it");
      expect(await store.getSync('s')).toBeUndefined();
      for (const text of ['zz\u0000', 'a\ud800b']) {
        const refused = await store.beginRun({ sync: { name: 's', query: { org: null, body: { q: text } }, service: 'http://127.0.0.1:1' }, mode: 'full' }).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(UsageError);
        expect((refused as Error).message).toMatch(/^the query holds a NUL character or an unpaired surrogate .*: a PostgreSQL copy cannot keep it$/);
      }
      await store.close();
    });

    it('Ctrl-C while local reads wait on a table someone locked: each fails with the interruption at once', async () => {
      const url = await server.createDatabase('lockedread');
      const writer = await open(url);
      await sync(writer, 's', docs(20, 1));
      await writer.close();
      const interrupt = new AbortController();
      const store = await open(url, 'read', { signal: interrupt.signal });
      try {
        await whileLocked(url, 'tenders', async () => {
          const reason = await interruptWhileWaiting(url, interrupt, [store.count({}), all(store.select({ words: 'road' }))]);
          // A read begun after Ctrl-C is not sent (nothing would cancel it), the lock still held.
          await expect(store.count({ statuses: ['open'] })).rejects.toBe(reason);
          await expect(all(store.select({}))).rejects.toBe(reason);
        });
      } finally {
        await store.close();
      }
    });

    it('Ctrl-C while --new-only asks which tenders the sync holds, behind a lock: the interruption, not the server\'s words', async () => {
      const url = await server.createDatabase('lockedknown');
      const interrupt = new AbortController();
      const store = await open(url, 'write', { signal: interrupt.signal });
      await sync(store, 's', docs(20, 1));
      const run = await store.beginRun({ sync: { name: 's', query: {}, service: 'http://127.0.0.1:1' }, mode: 'new-only' });
      try {
        await whileLocked(url, 'sync_tenders', async () => {
          await interruptWhileWaiting(url, interrupt, [run.known(['x'])]);
        });
      } finally {
        await run.abort();
        await store.close();
      }
    });

    it('readers see the committed copy while another transaction writes', async () => {
      const url = await server.createDatabase('readers');
      const store = await open(url);
      await sync(store, 's', docs(50, 1));
      const writer = new pg.Client({ connectionString: url });
      await writer.connect();
      try {
        await writer.query("BEGIN; UPDATE tenders SET title = 'half written', tsv = 'half:1'; DELETE FROM sync_tenders");
        expect((await store.count({})).total).toBe(50);
        expect((await store.count({ words: 'half' })).total).toBe(0);
        expect((await store.count({ sync: 's' })).total).toBe(50);
        expect(psql(url, "SELECT count(*) FROM tenders WHERE title = 'half written'")).toBe('0');
      } finally {
        await writer.query('ROLLBACK');
        await writer.end();
        await store.close();
      }
    });

    it('a run compares again at commit when another sync, or forget, committed after the walk compared its pages', async () => {
      const url = await server.createDatabase('recompare');
      const store = await open(url);
      const tenders = docs(2000, 7);
      const [a, c] = tenders as [Record<string, unknown>, Record<string, unknown>];
      await sync(store, 'x', tenders.filter((t) => t !== c));
      await sync(store, 'y', [c]);
      const run = await store.beginRun({ sync: { name: 'x', query: {}, service: 'http://127.0.0.1:1' }, mode: 'full' });
      // Pages of 100, COPied 1 000 rows at a time: the second COPY waits for the first one's comparison (A unchanged, C held by y).
      for (let i = 0; i < tenders.length; i += 100) await run.add(tenders.slice(i, i + 100));
      const other = await open(url);
      try {
        await sync(other, 'y', [c, { ...a, status: a.status === 'closed' ? 'open' : 'closed' }]);
        await other.forget('y');
      } finally {
        await other.close();
      }
      const receipt = await run.commit({ complete: true, pages: 20, requests: 20 });
      // x saw A as it was before y changed it, and C, which forget removed with y: both are stored as x saw them.
      expect(receipt.counts).toMatchObject({ new: 1, changed: 1, unchanged: 1998 });
      const stored = new Map((await all(store.select({}))).map((t) => [t.id, t]));
      expect(stored.size).toBe(2000);
      expect(stored.get(a.id)).toEqual(a);
      expect(stored.get(c.id)).toEqual(c);
      await store.close();
    });
  });
});
