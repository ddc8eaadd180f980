import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import { EXIT, exitCodeOf, RunError, UsageError } from '../../src/errors.js';
import { Store as Sandbox } from '../../src/sandbox/store.js';
import { writeTransaction } from '../../src/store/sqlite-connection.js';
import { migrate, MIGRATIONS, SCHEMA_VERSION, schemaVersion } from '../../src/store/sqlite-schema.js';
import { selectPlans } from '../../src/store/sqlite-select.js';
import type { LocalSelection } from '../../src/model/local-selection.js';
import { all, open, sync } from './engines.js';

/** The sqlite3 shell's answer to `sql` (it must succeed). */
function sqlite3(path: string, sql: string): string {
  const result = spawnSync('sqlite3', [path, sql], { encoding: 'utf8', maxBuffer: 1 << 30 });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout.trim();
}

const hash = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
/** Every table's rows, as the sqlite3 shell dumps them. */
const dump = (path: string) => createHash('sha256').update(sqlite3(path, '.dump')).digest('hex');

function docs(size: number, seed: number): Record<string, unknown>[] {
  return [...new Sandbox(size, seed).rows()].map((row) => parseJson(row.json) as Record<string, unknown>);
}

let dir: string;
let db: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tenders-sqlite-'));
  db = join(dir, 'tenders.db');
});
afterEach(() => {
  chmodSync(dir, 0o755);
  rmSync(dir, { recursive: true, force: true });
});

/** A copy at `path`, made by a first sync. */
async function made(path: string): Promise<void> {
  const store = await open(path);
  await sync(store, 'made', docs(5, 1));
  await store.close();
}

async function refusal(path: string, mode: 'read' | 'write' = 'write'): Promise<Error> {
  const err = (await open(path, mode).then(
    (store) => store.close().then(() => undefined),
    (e: unknown) => e,
  )) as Error | undefined;
  expect(err, 'refused').toBeInstanceOf(Error);
  return err!;
}


/** The ids of `tenders` having `by`, in the service's order of it (publication newest first, deadline soonest first; ties by id). */
function serviceOrder<T extends { id: string; publicationDate: string; deadline: string | null }>(tenders: T[], by: 'publicationDate' | 'deadline'): string[] {
  const sign = by === 'deadline' ? 1 : -1;
  return tenders
    .filter((t) => t[by] !== null)
    .sort((a, b) => {
      const [ka, kb] = [a[by]!, b[by]!];
      return ka === kb ? sign * (a.id < b.id ? -1 : 1) : sign * (ka < kb ? -1 : 1);
    })
    .map((t) => t.id);
}

describe('opening a SQLite copy', () => {
  it('creates the file and its directory, in WAL mode, at the schema version', async () => {
    const path = join(dir, 'a', 'b', 'tenders.db');
    const store = await open(path);
    // Opening for writing makes the directory; the copy itself is made by its first sync.
    expect(readdirSync(join(dir, 'a', 'b'))).toEqual([]);
    await sync(store, 's', docs(20, 1));
    await store.close();
    expect(readdirSync(join(dir, 'a', 'b'))).toEqual(['tenders.db']);
    expect(sqlite3(path, 'PRAGMA journal_mode')).toBe('wal');
    expect(sqlite3(path, "SELECT value FROM meta WHERE key = 'schema_version'")).toBe(String(SCHEMA_VERSION));
  });

  it('refuses, as a usage error before touching anything: a directory, a file that is not a database, another program\'s database', async () => {
    const cases: [string, RegExp][] = [];
    mkdirSync(join(dir, 'd'));
    cases.push([join(dir, 'd'), /is a directory/]);
    writeFileSync(join(dir, 'notes.txt'), 'hello, this is not a database at all\n');
    cases.push([join(dir, 'notes.txt'), /is not a SQLite database/]);
    sqlite3(join(dir, 'other.db'), 'CREATE TABLE things (a)');
    cases.push([join(dir, 'other.db'), /another program/]);
    for (const [path, message] of cases) {
      const before = existsSync(path) && !path.endsWith('d') ? hash(path) : undefined;
      const err = await refusal(path);
      expect(err, path).toBeInstanceOf(UsageError);
      expect(exitCodeOf(err)).toBe(EXIT.usage);
      expect(err.message).toMatch(message);
      expect(err.message).not.toContain('\n');
      if (before) expect(hash(path)).toBe(before);
    }
  });

  it('refuses a copy whose directory cannot be made (a link to nowhere in its path), as a usage error, making nothing', async () => {
    symlinkSync(join(dir, 'nowhere', 'x'), join(dir, 'link'));
    const err = await refusal(join(dir, 'link', 'copies', 'tenders.db'));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe(`cannot make the directory of the local copy, ${join(dir, 'link', 'copies')}: ENOENT: no such file or directory, mkdir '${join(dir, 'link', 'copies')}'`);
    expect(readdirSync(dir)).toEqual(['link']);
  });

  it('refuses a read-only file for writing, and reads it', async () => {
    await made(db);
    chmodSync(db, 0o444);
    const before = hash(db);
    const err = await refusal(db);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toMatch(/is read-only/);
    expect(hash(db)).toBe(before);
    await (await open(db, 'read')).close();
  });

  it('refuses a database of a newer schema version, leaving the file unchanged', async () => {
    await made(db);
    sqlite3(db, `UPDATE meta SET value = '${SCHEMA_VERSION + 1}' WHERE key = 'schema_version'`);
    const before = hash(db);
    for (const mode of ['write', 'read'] as const) {
      const err = await refusal(db, mode);
      expect(err).toBeInstanceOf(UsageError);
      expect(err.message).toContain(`newer tenders (schema version ${SCHEMA_VERSION + 1}; this one knows up to ${SCHEMA_VERSION})`);
    }
    expect(hash(db)).toBe(before);
  });

  it('reading a copy that is not there is a run error saying to sync first, and creates nothing', async () => {
    const err = await refusal(db, 'read');
    expect(err).toBeInstanceOf(RunError);
    expect(err.message).toMatch(/run tenders sync first/);
    expect(existsSync(db)).toBe(false);
  });

  it('upgrades an older database in place, one transaction per version, keeping its rows', () => {
    const raw = new Database(db);
    const latest = MIGRATIONS.length;
    migrate(raw, 0, MIGRATIONS);
    raw.prepare("INSERT INTO syncs (name, query, service, created) VALUES ('s', '{}', 'u', 'now')").run();
    const next = [...MIGRATIONS, (d: Database.Database) => d.exec('ALTER TABLE syncs ADD COLUMN note TEXT')];
    expect(schemaVersion(raw)).toBe(latest);
    migrate(raw, latest, next);
    expect(schemaVersion(raw)).toBe(latest + 1);
    expect(raw.prepare("SELECT name, note FROM syncs").raw().all()).toEqual([['s', null]]);
    // A step another writer took since the version was read is skipped (here: the whole schema, read as version 0).
    expect(() => migrate(raw, 0, next)).not.toThrow();
    expect(schemaVersion(raw)).toBe(latest + 1);
    // A step that fails leaves the database at the version before it.
    const failing = [...next, (d: Database.Database) => d.exec('ALTER TABLE syncs ADD COLUMN x TEXT; SELECT * FROM no_such_table')];
    expect(() => migrate(raw, latest + 1, failing)).toThrow();
    expect(schemaVersion(raw)).toBe(latest + 1);
    expect(raw.prepare('SELECT * FROM syncs').raw().all()).toEqual([['s', '{}', 'u', 'now', null, null, null]]);
    raw.close();
  });
});

describe('version 3', () => {
  // A copy as the last tenders of schema version 2 wrote it (a first sync of the sandbox's 30
  // tenders, seed 1), dumped by the sqlite3 shell: its key the table's UNIQUE constraint.
  const v2 = readFileSync(resolve('test/store/fixtures/sqlite-copy-v2.sql'), 'utf8');

  it('upgrades a version 2 copy in place: its tenders and full-text answers kept, the user\'s objects on them too', async () => {
    const made = spawnSync('sqlite3', [db], { input: v2, encoding: 'utf8' });
    expect(made.stderr).toBe('');
    // What a user may have added: a view of each table, an index, a table whose rows cascade from the tenders'.
    sqlite3(db, `CREATE VIEW open_tenders AS SELECT id, title FROM tenders WHERE status = 'open';
      CREATE VIEW hits AS SELECT rowid FROM tenders_fts WHERE tenders_fts MATCH 'services';
      CREATE INDEX my_buyer_id ON tenders (buyer_id);
      CREATE TABLE notes (id TEXT REFERENCES tenders (id) ON DELETE CASCADE, note TEXT);
      INSERT INTO notes SELECT id, 'call them' FROM tenders LIMIT 3`);
    const read = (sql: string) => sqlite3(db, sql);
    const before = ['SELECT seq, id, doc FROM tenders ORDER BY seq', 'SELECT * FROM open_tenders', 'SELECT * FROM hits', 'SELECT * FROM notes'].map(read);
    expect(before[2]).not.toBe('');

    // A dry run or a list reads the syncs' definitions as they are, upgrading nothing.
    expect(await refusal(db, 'read')).toBeInstanceOf(RunError);
    const definitions = await open(db, 'read', { definitionsOnly: true });
    expect((await definitions.listSyncs()).map((sync) => sync.tenders)).toEqual([30]);
    await definitions.close();
    expect(read("SELECT value FROM meta WHERE key = 'schema_version'")).toBe('2');
    const store = await open(db);
    expect(read("SELECT value FROM meta WHERE key = 'schema_version'")).toBe(String(SCHEMA_VERSION));
    expect(read("SELECT sql FROM sqlite_schema WHERE name = 'tenders_fts'")).toContain('columnsize=0');
    expect(read('PRAGMA integrity_check')).toBe('ok');
    expect(read("INSERT INTO tenders_fts (tenders_fts) VALUES ('integrity-check'); SELECT 'ok'")).toBe('ok');
    expect(['SELECT seq, id, doc FROM tenders ORDER BY seq', 'SELECT * FROM open_tenders', 'SELECT * FROM hits', 'SELECT * FROM notes'].map(read)).toEqual(before);
    expect(read("SELECT count(*) FROM sqlite_schema WHERE name IN ('my_buyer_id', 'sqlite_autoindex_tenders_1')")).toBe('2');
    expect(read("SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'tenders'")).toBe('3');
    // Its key is the table's own still, and holds; a sync of the same tenders changes nothing.
    expect(() => read("INSERT INTO tenders (id, doc, first_seen) SELECT id, doc, 'now' FROM tenders LIMIT 1")).toThrow();
    const run = await store.beginRun({ sync: { name: 'v2', query: { org: null, body: {} }, service: 'http://127.0.0.1:1' }, mode: 'full' });
    // The fixture's own documents (the sandbox's data has moved on since it was dumped).
    await run.add(read('SELECT doc FROM tenders ORDER BY seq').split('\n').map((doc) => parseJson(doc) as Record<string, unknown>));
    expect((await run.commit({ complete: true, pages: 1, requests: 1 })).counts).toMatchObject({ new: 0, changed: 0, gone: 0, unchanged: 30 });
    expect((await store.count({ words: 'services' })).total).toBe(before[2]!.split('\n').length);
    await store.close();
  });
});

describe('a new copy', () => {
  const partial = () => `${db}.partial`;

  it('is built whole beside its path and linked into place by its first sync: nothing is there to read before', async () => {
    const store = await open(db);
    const run = await store.beginRun({ sync: { name: 's', query: {}, service: 'http://127.0.0.1:1' }, mode: 'full' });
    const tenders = docs(700, 3);
    for (let i = 0; i < tenders.length; i += 100) await run.add(tenders.slice(i, i + 100));
    expect(existsSync(db)).toBe(false);
    expect(existsSync(partial())).toBe(true);
    expect(await refusal(db, 'read')).toBeInstanceOf(RunError);
    const receipt = await run.commit({ complete: true, pages: 7, requests: 7 });
    expect(receipt).toMatchObject({ baseline: true, complete: true, counts: { seen: 700, new: 700, repeated: 0, changed: 0, gone: 0 } });
    expect(existsSync(db)).toBe(true);
    expect(readdirSync(dir).filter((name) => name.includes('partial'))).toEqual([]);
    expect(sqlite3(db, 'PRAGMA integrity_check')).toBe('ok');
    expect(sqlite3(db, "INSERT INTO tenders_fts (tenders_fts) VALUES ('integrity-check'); SELECT 'ok'")).toBe('ok');
    expect(sqlite3(db, 'PRAGMA journal_mode')).toBe('wal');
    expect(sqlite3(db, 'PRAGMA page_size')).toBe('16384');
    // Its indexes are those of any copy, and a query finds its tenders by them.
    expect(sqlite3(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'tenders' AND name LIKE 'tenders_%'")).toBe('7');
    expect(sqlite3(db, 'SELECT count(*) FROM sync_tenders').split('\n')).toEqual(['700']);
    expect(sqlite3(db, 'SELECT count(*), sum(complete) FROM runs')).toBe('1|1');
    const title = String(tenders[0]!.title).split(/\W+/).find((word) => word.length > 3)!;
    expect((await store.count({ words: title })).total).toBe(tenders.filter((t) => String(t.title).includes(title)).length);
    // The store now reads and writes the copy: the next run compares with it.
    const again = await sync(store, 's', tenders);
    expect(again.counts).toMatchObject({ new: 0, changed: 0, unchanged: 700 });
    await store.close();
  });

  it('a repeated id counts as its last copy, its full-text entry too, in one page or across pages', async () => {
    const store = await open(db);
    const [a, b, c] = docs(3, 4);
    const run = await store.beginRun({ sync: { name: 's', query: {}, service: 'u' }, mode: 'full' });
    await run.add([a!, { ...b!, title: 'Zebra crossing' }, { ...c!, title: 'Quay walls' }, { ...c!, title: 'Lighthouse keeping' }]);
    await run.add([{ ...b!, title: 'Harbour dredging' }]);
    const receipt = await run.commit({ complete: true, pages: 2, requests: 2 });
    expect(receipt.counts).toMatchObject({ seen: 5, new: 3, repeated: 2 });
    expect((await store.count({ words: 'zebra' })).total).toBe(0);
    expect((await store.count({ words: 'harbour' })).total).toBe(1);
    expect((await store.count({ words: 'quay' })).total).toBe(0);
    expect((await store.count({ words: 'lighthouse' })).total).toBe(1);
    expect(sqlite3(db, "INSERT INTO tenders_fts (tenders_fts) VALUES ('integrity-check'); SELECT 'ok'")).toBe('ok');
    await store.close();
  });

  it('an aborted first sync leaves nothing; a failed one a copy with its receipt alone', async () => {
    const store = await open(db);
    const aborted = await store.beginRun({ sync: { name: 's', query: {}, service: 'u' }, mode: 'full' });
    await aborted.add(docs(50, 1));
    await aborted.abort();
    expect(readdirSync(dir)).toEqual([]);
    const failed = await store.beginRun({ sync: { name: 's', query: {}, service: 'u' }, mode: 'full' });
    await failed.add(docs(50, 1));
    const receipt = await failed.commit({ complete: false, pages: 1, requests: 2, error: 'the service failed' });
    expect(receipt).toMatchObject({ complete: false, error: 'the service failed', counts: { seen: 50 } });
    expect(readdirSync(dir).filter((name) => name.includes('partial'))).toEqual([]);
    expect(sqlite3(db, 'SELECT count(*) FROM tenders; SELECT count(*) FROM syncs; SELECT complete, error FROM runs')).toBe('0\n0\n0|the service failed');
    await store.close();
  });

  it('a partial file beside a copy that exists (its first sync was killed once it had linked it) goes with the next sync', async () => {
    await made(db);
    writeFileSync(partial(), 'left by a killed first sync');
    writeFileSync(`${partial()}-journal`, 'and its journal');
    const store = await open(db);
    await sync(store, 'made', docs(5, 1));
    await store.close();
    expect(readdirSync(dir).filter((name) => name.includes('partial'))).toEqual([]);
  });

  it('two first syncs of one new copy: the one that ends first makes it, the other applies its run to it', async () => {
    const a = await open(db);
    const b = await open(db);
    const first = await a.beginRun({ sync: { name: 'a', query: {}, service: 'u' }, mode: 'full' });
    const shared = docs(30, 1);
    await first.add(shared);
    // b finds a building the copy: it makes the copy the general way, and ends first.
    await sync(b, 'b', shared.map((t, i) => (i < 10 ? { ...t, status: 'cancelled' } : t)));
    await first.add(docs(40, 2).slice(30));
    const receipt = await first.commit({ complete: true, pages: 2, requests: 2 });
    // Its baseline found the tenders b cancelled: it records their change back and counts it (docs/local-copy-schema.md).
    const back = shared.slice(0, 10).filter((t) => t.status !== 'cancelled').length;
    expect(receipt.counts).toMatchObject({ seen: 40, new: 40, changed: back, unchanged: 0, repeated: 0 });
    expect(readdirSync(dir).filter((name) => name.includes('partial'))).toEqual([]);
    expect((await a.count({})).total).toBe(40);
    expect((await a.count({ sync: 'b' })).total).toBe(30);
    // a saw b's cancelled tenders as they are now: each change is recorded once, by a.
    const changes = await all(a.changes({ sync: 'a' }));
    const cancelled = shared.slice(0, 10).filter((t) => t.status !== 'cancelled');
    expect(cancelled.length).toBeGreaterThan(0);
    expect(changes.filter((c) => c.kind === 'changed').map((c) => [c.sync, c.id, c.field, c.old, c.new])).toEqual(
      cancelled.map((t) => ['a', t.id, 'status', 'cancelled', t.status]).sort((x, y) => String(x[1]).localeCompare(String(y[1]))),
    );
    expect(sqlite3(db, 'PRAGMA integrity_check')).toBe('ok');
    await a.close();
    await b.close();
  });
});

describe('readers and writers', () => {
  it('readers (the store and the sqlite3 shell) read the copy before a write while it is under way', async () => {
    const store = await open(db);
    await sync(store, 's', docs(50, 1));
    const writer = new Database(db);
    writer.exec("BEGIN IMMEDIATE; UPDATE tenders SET title = 'half-written'; DELETE FROM sync_tenders");
    try {
      expect((await store.count({})).total).toBe(50);
      expect((await store.count({ words: 'half' })).total).toBe(0);
      expect(sqlite3(db, 'SELECT count(*) FROM tenders WHERE title = \'half-written\'')).toBe('0');
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
      await store.close();
    }
  });

  it('a writer waits a bounded time for another sync\'s commit, then fails clearly, leaving the copy as it was', async () => {
    const store = await open(db, 'write', { busyTimeoutMs: 50 });
    await sync(store, 's', docs(20, 1));
    const before = dump(db);
    const run = await store.beginRun({ sync: { name: 't', query: {}, service: 'u' }, mode: 'full' });
    await run.add(docs(20, 2));
    const other = new Database(db);
    other.exec('BEGIN IMMEDIATE');
    try {
      const err = await run.commit({ complete: true, pages: 1, requests: 1 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RunError);
      expect((err as Error).message).toMatch(/is busy: another sync has been writing it/);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(dump(db)).toBe(before);
    // The failed run released its lock.
    await sync(store, 't', docs(20, 2));
    await store.close();
  });

  it('a writer waiting for another asks between slices of its wait whether it was interrupted, stops when it was, and restores its wait', async () => {
    const store = await open(db);
    await sync(store, 's', docs(5, 1));
    await store.close();
    const before = dump(db);
    const writer = new Database(db);
    const other = new Database(db);
    other.exec('BEGIN IMMEDIATE');
    let asked = 0;
    try {
      // Far longer than the test may take: only the interruption, asked for the third time, ends the wait.
      const write = () => writeTransaction(writer, db, 3_600_000, () => writer.exec("UPDATE meta SET value = 'x' WHERE key = 'created'"), () => ++asked === 3);
      expect(write).toThrow(/^interrupted while writing the copy/);
      expect(asked).toBe(3);
      expect(writer.pragma('busy_timeout', { simple: true })).toBe(3_600_000);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    // Asked again after the work, before COMMIT: undone.
    expect(() => writeTransaction(writer, db, 1000, () => writer.exec("UPDATE meta SET value = 'x' WHERE key = 'created'"), () => true)).toThrow(/^interrupted/);
    expect(writer.inTransaction).toBe(false);
    writer.close();
    expect(dump(db)).toBe(before);
  });

  it('staging a run takes no lock: another sync commits meanwhile', async () => {
    const a = await open(db);
    const b = await open(db, 'write', { busyTimeoutMs: 0 });
    const run = await a.beginRun({ sync: { name: 'a', query: {}, service: 'u' }, mode: 'full' });
    await run.add(docs(30, 1));
    await sync(b, 'b', docs(30, 2));
    await run.commit({ complete: true, pages: 1, requests: 1 });
    expect((await b.count({})).total).toBe((await a.count({})).total);
    await a.close();
    await b.close();
  });

  it('other tools writing titles keep the full-text index in step (triggers)', async () => {
    const store = await open(db);
    await sync(store, 's', docs(30, 1));
    sqlite3(db, "UPDATE tenders SET title = 'Zebra crossing repaint' WHERE rowid = (SELECT min(rowid) FROM tenders)");
    expect((await store.count({ words: 'zebra' })).total).toBe(1);
    sqlite3(db, "DELETE FROM tenders WHERE title LIKE 'Zebra%'");
    expect((await store.count({ words: 'zebra' })).total).toBe(0);
    expect(sqlite3(db, "INSERT INTO tenders_fts(tenders_fts) VALUES ('integrity-check'); SELECT 'ok'")).toBe('ok');
    await store.close();
  });
});

describe('full-text queries over many matches', () => {
  it('walks the order and probes when many tenders match, finds and sorts when few do: the same rows in the same order', async () => {
    const store = await open(db);
    const tenders = Array.from({ length: 2600 }, (_, i) => ({
      id: `T-${String(i).padStart(5, '0')}`,
      title: i % 500 === 0 ? `Rare harbour dredging ${i}` : `Cleaning services lot ${i % 7}`,
      publicationDate: `2026-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
      deadline: i % 3 === 0 ? null : `2027-01-${String((i % 28) + 1).padStart(2, '0')}T12:00:00Z`,
      buyer: { id: 'B', name: 'City', country: 'DEU' },
    }));
    await sync(store, 's', tenders);
    const expected = (test: (t: (typeof tenders)[number]) => boolean, by: 'publicationDate' | 'deadline') => serviceOrder(tenders.filter(test), by);
    const ids = async (words: string, sortBy: 'publicationDate' | 'deadline', limit?: number, after?: string) => {
      const out: unknown[] = [];
      for await (const batch of store.select({ words, sortBy }, { limit, after })) out.push(...batch.map((t) => t.id));
      return out;
    };
    expect(tenders.filter((t) => t.title.startsWith('Cleaning')).length).toBeGreaterThan(2000);
    for (const sortBy of ['publicationDate', 'deadline'] as const) {
      const many = expected((t) => t.title.startsWith('Cleaning'), sortBy);
      expect(await ids('cleaning', sortBy, 20)).toEqual(many.slice(0, 20));
      expect(await ids('cleaning', sortBy, 20, many[19])).toEqual(many.slice(20, 40));
      expect(await ids('cleaning', sortBy)).toEqual(many);
      expect(await ids('harbour', sortBy)).toEqual(expected((t) => t.title.startsWith('Rare'), sortBy));
    }
    await store.close();
  });
});

describe('CPV codes over many matches', () => {
  it('walks an index in the order and probes the codes when many match, lists and sorts when few do: the same rows in the same order', async () => {
    const store = await open(db);
    const tenders = Array.from({ length: 2600 }, (_, i) => ({
      id: `T-${String(i).padStart(5, '0')}`,
      title: `Works ${i}`,
      publicationDate: `2026-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
      deadline: i % 3 === 0 ? null : `2027-01-${String((i % 28) + 1).padStart(2, '0')}T12:00:00Z`,
      buyer: { id: 'B', name: 'City', country: ['DEU', 'FRA', 'AUT'][i % 3] },
      cpvCodes: i % 500 === 0 ? ['03000000'] : i % 10 < 8 ? ['45233140-2', '45100000'] : ['33100000'],
    }));
    await sync(store, 's', tenders);
    const raw = new Database(db, { readonly: true });
    expect(selectPlans(raw, { cpv: ['45'], countries: ['DEU'] })).toEqual({ codes: 'probe' });
    expect(selectPlans(raw, { cpv: ['03', '331'] })).toEqual({ codes: 'matches' });
    raw.close();
    const codes = (t: (typeof tenders)[number]) => t.cpvCodes.map((c) => c.slice(0, 8));
    const expected = (test: (t: (typeof tenders)[number]) => boolean, by: 'publicationDate' | 'deadline') => serviceOrder(tenders.filter(test), by);
    const ids = async (selection: LocalSelection, limit?: number, after?: string) => {
      const out: unknown[] = [];
      for await (const batch of store.select(selection, { limit, after })) out.push(...batch.map((t) => t.id));
      return out;
    };
    for (const sortBy of ['publicationDate', 'deadline'] as const) {
      const german = expected((t) => t.buyer.country === 'DEU' && codes(t).some((c) => c.startsWith('45')), sortBy);
      expect(await ids({ cpv: ['45'], countries: ['DEU'], sortBy }, 20)).toEqual(german.slice(0, 20));
      expect(await ids({ cpv: ['45'], countries: ['DEU'], sortBy }, 20, german[19])).toEqual(german.slice(20, 40));
      expect(await ids({ cpv: ['45'], countries: ['DEU'], sortBy })).toEqual(german);
      expect(await ids({ cpv: ['4523'], sortBy }, 30)).toEqual(expected((t) => codes(t).some((c) => c.startsWith('4523')), sortBy).slice(0, 30));
      expect(await ids({ cpv: ['03', '331'], sortBy })).toEqual(expected((t) => codes(t).some((c) => c.startsWith('03') || c.startsWith('331')), sortBy));
    }
    await store.close();
  });
});

describe('a run killed with SIGKILL', () => {
  let child: string;
  beforeAll(async () => {
    const out = mkdtempSync(join(tmpdir(), 'tenders-killed-run-'));
    child = join(out, 'killed-run.cjs');
    await build({
      entryPoints: [resolve('test/store/fixtures/killed-run.ts')],
      outfile: child,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      external: ['better-sqlite3'],
      // As vitest runs src/: the run is hosted in the process's own thread.
      define: { __TENDERS_SQLITE_WORKER__: 'null' },
      logLevel: 'error',
    });
  });

  /** Runs the child until it prints `phase`, then kills it with SIGKILL. */
  function killAt(phase: 'stage' | 'commit', size: number, seed: number): Promise<void> {
    return new Promise((done, fail) => {
      const proc = spawn(process.execPath, [child, db, phase, String(size), String(seed)], {
        env: { ...process.env, NODE_PATH: resolve('node_modules') },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      proc.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes(phase)) proc.kill('SIGKILL');
      });
      proc.on('exit', (code, signal) => (signal === 'SIGKILL' ? done() : fail(new Error(`child ended ${code}: ${stderr}`))));
    });
  }

  it('a first sync killed while it builds a new copy leaves none, only its partial file, which the next first sync replaces', { timeout: 180_000 }, async () => {
    await killAt('stage', 1200, 6);
    expect(existsSync(db)).toBe(false);
    expect(existsSync(`${db}.partial`)).toBe(true);
    const store = await open(db);
    const receipt = await sync(store, 'killed', docs(1200, 6));
    expect(receipt.counts).toMatchObject({ seen: 1200, new: 1200 });
    expect(readdirSync(dir).filter((name) => name.includes('partial'))).toEqual([]);
    expect(sqlite3(db, 'PRAGMA integrity_check')).toBe('ok');
    expect(sqlite3(db, 'SELECT count(*) FROM tenders')).toBe('1200');
    await store.close();
  });

  // Killed while staging, and inside the commit of a run so large that it rebuilds the indexes.
  for (const [phase, size] of [
    ['stage', 1200],
    ['commit', 6000],
  ] as const) {
    it(`in its ${phase} leaves the database as it was, intact; the next run does the whole work once`, { timeout: 180_000 }, async () => {
      const store = await open(db);
      const first = docs(500, 5);
      await sync(store, 'killed', first);
      await store.close();
      const before = dump(db);

      // Tenders of another seed: the same ids with other content, and new ones.
      await killAt(phase, size, 6);
      // Killed inside its commit, the run had written (uncommitted) pages into the WAL.
      if (phase === 'commit') expect(statSync(`${db}-wal`).size).toBeGreaterThan(0);

      expect(sqlite3(db, 'PRAGMA integrity_check')).toBe('ok');
      expect(dump(db)).toBe(before);
      const reopened = await open(db);
      expect((await reopened.count({})).total).toBe(500);
      expect(await reopened.listSyncs().then((list) => list.map((s) => s.lastRun.run))).toHaveLength(1);
      // The lock the killed process left is taken over; the run records its changes once.
      const receipt = await sync(reopened, 'killed', docs(size, 6));
      expect(receipt.counts).toMatchObject({ new: size - 500, changed: 500 });
      let rows = 0;
      for await (const batch of reopened.changes({ sync: 'killed' })) rows += batch.length;
      expect(Number(sqlite3(db, 'SELECT count(*) FROM changes'))).toBe(rows);
      expect(Number(sqlite3(db, "SELECT count(*) FROM changes WHERE kind = 'new'"))).toBe(size - 500);
      expect(sqlite3(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name LIKE 'tenders\\_%' ESCAPE '\\'")).toBe('7');
      expect(sqlite3(db, 'PRAGMA integrity_check')).toBe('ok');
      await reopened.close();
    });
  }
});
