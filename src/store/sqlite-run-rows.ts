/** The shared statements (sql/writes.ts) run on a SQLite connection, synchronously. */

import type BetterSqlite3 from 'better-sqlite3';
import { sqliteDialect, type Statement } from './sql/dialect.js';
import { insertRun } from './sql/writes.js';
import type { RunReceipt } from './store.js';

type Database = BetterSqlite3.Database;

/** Runs `s`; how many rows it changed. */
export function exec(db: Database, s: Statement): number {
  return db.prepare(s.sql).run(...s.params).changes;
}

/** The `runs` row of a receipt; returns its run number. */
export function insertRunRow(db: Database, r: RunReceipt): number {
  const s = insertRun(sqliteDialect, r);
  return Number(db.prepare(s.sql).run(...s.params).lastInsertRowid);
}
