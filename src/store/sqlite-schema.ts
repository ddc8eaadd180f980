/**
 * The SQLite schema (docs/local-copy-schema.md) as migrations: MIGRATIONS[v]
 * takes a database from version v to v + 1; version 0 is an empty file, which
 * all of them make into this version's schema (the key of tenders as TENDER_KEY
 * says). Each upgrade runs in one transaction with the version it writes.
 */

import type BetterSqlite3 from 'better-sqlite3';

import { DEFAULT_CPV_PATHS } from '../model/cpv.js';
import { parseJson } from '../model/json-parse.js';
import { tenderColumns } from './columns.js';
import { sqliteDialect } from './sql/dialect.js';
import { newServeSecret, SERVE_SECRET_TABLE } from './serve-secret.js';
import { COUNTRY_DATE_AND_LIVE_CODES } from './sql/upgrades.js';
import { cpvStatements } from './sql/writes.js';
import { TENDER_INDEXES } from './tender-indexes.js';

type Database = BetterSqlite3.Database;

export type Migration = (db: Database) => void;

/** Indexes inserted rows for full-text search; a large run drops it and rebuilds the index once instead (sqlite-run.ts). */
export const FTS_INSERT_TRIGGER = `CREATE TRIGGER tenders_fts_insert AFTER INSERT ON tenders BEGIN
  INSERT INTO tenders_fts (rowid, title, buyer_name) VALUES (new.seq, new.title, new.buyer_name);
END;`;

/**
 * The key of `tenders`: since version 3 a new database makes it an index, which a new copy's
 * first sync builds once its rows are in. A database made before keeps the UNIQUE constraint
 * of its table, the same key: changing that would mean making the table again, which a view,
 * trigger or foreign key of the user's on it could break.
 */
export const TENDER_KEY = 'CREATE UNIQUE INDEX tenders_id ON tenders (id);';

const V1 = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE tenders (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  published TEXT,
  deadline TEXT,
  status TEXT,
  buyer_id TEXT,
  buyer_name TEXT,
  buyer_country TEXT,
  title TEXT,
  value_eur REAL,
  doc TEXT NOT NULL,
  first_seen TEXT NOT NULL,
  last_seen TEXT NOT NULL,
  gone_at TEXT
);
${TENDER_KEY}
${TENDER_INDEXES.join('\n')}

CREATE VIRTUAL TABLE tenders_fts USING fts5(
  title, buyer_name, content='tenders', content_rowid='seq', tokenize='unicode61 remove_diacritics 2'
);
${FTS_INSERT_TRIGGER}
CREATE TRIGGER tenders_fts_delete AFTER DELETE ON tenders BEGIN
  INSERT INTO tenders_fts (tenders_fts, rowid, title, buyer_name) VALUES ('delete', old.seq, old.title, old.buyer_name);
END;
CREATE TRIGGER tenders_fts_update AFTER UPDATE OF title, buyer_name ON tenders
WHEN old.title IS NOT new.title OR old.buyer_name IS NOT new.buyer_name BEGIN
  INSERT INTO tenders_fts (tenders_fts, rowid, title, buyer_name) VALUES ('delete', old.seq, old.title, old.buyer_name);
  INSERT INTO tenders_fts (rowid, title, buyer_name) VALUES (new.seq, new.title, new.buyer_name);
END;

CREATE TABLE syncs (
  name TEXT PRIMARY KEY,
  query TEXT NOT NULL,
  service TEXT NOT NULL,
  created TEXT NOT NULL,
  last_run INTEGER,
  last_complete TEXT
);

CREATE TABLE sync_tenders (
  sync TEXT NOT NULL,
  id TEXT NOT NULL,
  first_seen TEXT NOT NULL,
  last_seen TEXT NOT NULL,
  gone_at TEXT,
  PRIMARY KEY (sync, id)
) WITHOUT ROWID;
CREATE INDEX sync_tenders_id ON sync_tenders (id);

CREATE TABLE runs (
  run INTEGER PRIMARY KEY AUTOINCREMENT,
  sync TEXT NOT NULL,
  query TEXT NOT NULL,
  service TEXT NOT NULL,
  mode TEXT NOT NULL,
  baseline INTEGER NOT NULL,
  started TEXT NOT NULL,
  ended TEXT NOT NULL,
  complete INTEGER NOT NULL,
  pages INTEGER NOT NULL,
  requests INTEGER NOT NULL,
  new INTEGER NOT NULL,
  changed INTEGER NOT NULL,
  gone INTEGER NOT NULL,
  unchanged INTEGER NOT NULL,
  seen INTEGER NOT NULL,
  repeated INTEGER NOT NULL,
  without_id INTEGER NOT NULL,
  error TEXT
);
CREATE INDEX runs_sync ON runs (sync, run);

CREATE TABLE changes (
  seq INTEGER PRIMARY KEY,
  run INTEGER NOT NULL,
  sync TEXT NOT NULL,
  id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('new', 'changed', 'gone')),
  field TEXT,
  old TEXT,
  new TEXT,
  at TEXT NOT NULL
);
CREATE INDEX changes_id ON changes (id);
CREATE INDEX changes_sync_at ON changes (sync, at);
CREATE INDEX changes_at ON changes (at);
`;

/**
 * Version 3: the full-text index keeps no column sizes, which only bm25() ranking reads
 * (nothing of tenders ranks): a first sync writes less. The index is made again from
 * `tenders`; a view of the user's on it reads the new one.
 */
const V3 = `
DROP TABLE tenders_fts;
CREATE VIRTUAL TABLE tenders_fts USING fts5(
  title, buyer_name, content='tenders', content_rowid='seq', tokenize='unicode61 remove_diacritics 2', columnsize=0
);
INSERT INTO tenders_fts (tenders_fts) VALUES ('rebuild');
`;

/**
 * Version 4: each tender's CPV codes (model/cpv.ts tenderCpvCodes) as a JSON array in `cpv`,
 * and one a row in tender_cpv (from that column, rewritten with the tender), indexed by code:
 * the tenders under a code prefix are a range of the index, not a scan of every document.
 */
const V4 = `
ALTER TABLE tenders ADD COLUMN cpv TEXT;
CREATE TABLE tender_cpv (id TEXT NOT NULL, code TEXT NOT NULL, PRIMARY KEY (id, code)) WITHOUT ROWID;
CREATE INDEX tender_cpv_code ON tender_cpv (code, id);
`;

export const MIGRATIONS: readonly Migration[] = [
  (db) => {
    db.exec(V1);
    db.prepare("INSERT INTO meta (key, value) VALUES ('created', ?)").run(new Date().toISOString());
  },
  // Version 2: a re-sync rewrote every row of tenders (whole documents) for this column alone;
  // when a tender was last seen is sync_tenders.last_seen, per sync.
  (db) => db.exec('ALTER TABLE tenders DROP COLUMN last_seen'),
  (db) => db.exec(V3),
  // Version 4: each tender's CPV codes, in a column and one a row in tender_cpv, where a code prefix is a range of its index.
  (db) => {
    db.exec(V4);
    // Only a document that says "cpv" can hold codes where tenders reads them (model/cpv.ts DEFAULT_CPV_PATHS).
    const read = db.prepare(`SELECT seq, id, doc FROM tenders WHERE seq > ? AND doc LIKE '%cpv%' ORDER BY seq LIMIT 1000`).raw();
    const write = db.prepare('UPDATE tenders SET cpv = ? WHERE seq = ?');
    for (let rows = read.all(0) as [number, string, string][]; rows.length > 0; rows = read.all(rows[rows.length - 1]![0]) as [number, string, string][]) {
      for (const [seq, id, doc] of rows) {
        const { cpv } = tenderColumns(id, parseJson(doc) as Record<string, unknown>, DEFAULT_CPV_PATHS);
        if (cpv !== null) write.run(cpv, seq);
      }
    }
    for (const s of cpvStatements(sqliteDialect)) db.prepare(s.sql).run(...s.params);
  },
  // Version 5: the secret tenders serve signs its cursors with, kept in the copy (servers of one copy agree on it).
  (db) => {
    db.exec(SERVE_SECRET_TABLE);
    db.prepare('INSERT INTO serve_secret (secret) VALUES (?)').run(newServeSecret());
  },
  // Version 6: the country index ordered by date, and tender_cpv of the tenders not gone only (sql/upgrades.ts).
  (db) => {
    for (const sql of COUNTRY_DATE_AND_LIVE_CODES) db.exec(sql);
  },
];

/** The schema version this build writes for SQLite; a copy of a newer one is refused. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** The version a database is at: 0 without a meta table; undefined when it holds tables of another program. */
export function schemaVersion(db: Database): number | undefined {
  const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").raw().all() as [string][];
  if (tables.length === 0) return 0;
  if (!tables.some(([name]) => name === 'meta')) return undefined;
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").raw().get() as [string] | undefined;
  const version = Number(row?.[0]);
  return Number.isInteger(version) && version > 0 ? version : undefined;
}

/** Upgrades from `from` to migrations.length, one transaction per step (a step another writer took meanwhile is skipped). */
export function migrate(db: Database, from: number, migrations: readonly Migration[] = MIGRATIONS): void {
  for (let version = from; version < migrations.length; version++) {
    db.exec('BEGIN IMMEDIATE');
    try {
      // Another writer may have taken this step since the version was read: read it again under the write lock.
      const now = schemaVersion(db) ?? 0;
      if (now > version) {
        db.exec('COMMIT');
        version = now - 1;
        continue;
      }
      migrations[version]!(db);
      db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(
        String(version + 1),
      );
      db.exec('COMMIT');
    } catch (err) {
      db.exec('ROLLBACK');
      throw err;
    }
  }
}
