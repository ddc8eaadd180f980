/** The rows a SQLite run writes about itself: its receipt (`runs`) and its sync's saved definition (`syncs`). */

import type BetterSqlite3 from 'better-sqlite3';
import { stringifyExact } from '../model/exact-json.js';
import { COUNT_COLUMNS, countValues, RUN_COLUMNS, runRowValues } from './run-receipt.js';
import type { RunCounts, RunReceipt, SyncDefinition } from './store.js';

type Database = BetterSqlite3.Database;

/** The `runs` row of a receipt; returns its run number. */
export function insertRunRow(db: Database, r: RunReceipt): number {
  const values = runRowValues(r, (flag) => (flag ? 1 : 0));
  return Number(db.prepare(`INSERT INTO runs (${RUN_COLUMNS}) VALUES (${values.map(() => '?').join(', ')})`).run(values).lastInsertRowid);
}

/** A run's counts once its commit knows them. */
export function saveCounts(db: Database, run: number, c: RunCounts): void {
  db.prepare(`UPDATE runs SET ${COUNT_COLUMNS.map((column) => `${column} = ?`).join(', ')} WHERE run = ?`).run(...countValues(c), run);
}

/** A complete run: the sync's definition as it ran, created now if it is new. */
export function saveSync(db: Database, sync: SyncDefinition, run: number, now: string): void {
  db.prepare(
    `INSERT INTO syncs (name, query, service, created, last_run, last_complete) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET query = excluded.query, service = excluded.service, last_run = excluded.last_run,
       last_complete = excluded.last_complete`,
  ).run(sync.name, stringifyExact(sync.query), sync.service, now, run, now);
}

/** An incomplete run: the sync (if it exists) points at its receipt, nothing else changes. */
export function saveLastRun(db: Database, name: string, run: number): void {
  db.prepare('UPDATE syncs SET last_run = ? WHERE name = ?').run(run, name);
}
