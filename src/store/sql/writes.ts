/**
 * The statements a sync run's commit writes, once for both engines: the
 * history (new, changed, gone), the membership, the codes' side table, the
 * receipt and the sync's definition. Each engine stages its pages its own way
 * (SQLite's TEMP tables, PostgreSQL's COPY) into a `delta` table of the
 * tenders that are new to the sync (`held` false) or whose document is new,
 * changed or back (`differs`), and runs these against it.
 */

import { stringifyExact, type JsonObject } from '../../model/exact-json.js';
import { parseJson } from '../../model/json-parse.js';
import { jsonOrNull } from '../columns.js';
import { CPV_PATHS_KEY } from './reads.js';
import { fieldChanges } from '../field-changes.js';
import { COUNT_COLUMNS, countValues, RUN_COLUMNS, runRowValues } from '../run-receipt.js';
import type { RunCounts, RunReceipt, SyncDefinition } from '../store.js';
import { statement, type SqlDialect, type Statement } from './dialect.js';

/** `new` rows of the run's tenders new to the sync (a baseline records none). */
export function newChanges(d: SqlDialect, delta: string, run: number, name: string, now: string): Statement {
  return statement(d, (sql) => `INSERT INTO changes (run, sync, id, kind, at) SELECT ${sql.value(run)}, ${sql.value(name)}, id, 'new', ${sql.value(now)} FROM ${delta} WHERE NOT held ORDER BY id`);
}

/** One tender whose stored document differs from the run's: its id, both documents' text, and whether the sync held it. */
export type DifferingRow = [id: string, before: string, current: string, held: unknown];

/** How many tenders a run's `changed` rows are of, and how many of those its sync held before the run. */
export interface Changed {
  changed: number;
  held: number;
}

/**
 * The `changed` rows of differing tenders (id, field, old and new JSON text), and how many
 * tenders they are of: a run counts as changed every tender it records a change of, one its
 * sync held or one another sync stored (docs/local-copy-schema.md, "What a run records").
 */
export function fieldChangeRows(rows: readonly DifferingRow[]): Changed & { changes: [string, string, string | null, string | null][] } {
  const changes: [string, string, string | null, string | null][] = [];
  let changed = 0;
  let held = 0;
  for (const [id, before, current, isHeld] of rows) {
    const fields = fieldChanges(parseJson(before) as JsonObject, parseJson(current) as JsonObject);
    for (const field of fields) changes.push([id, field.path, jsonOrNull(field.old), jsonOrNull(field.new)]);
    if (fields.length > 0) {
      changed++;
      if (isHeld) held++;
    }
  }
  return { changes, changed, held };
}

/**
 * The gone tenders of a complete run: its sync's tenders not `seen` (a
 * condition on `sync_tenders.id`) marked gone, the `gone` rows of those it
 * marked now, and gone_at where no sync holds them any more. The first
 * statement's count is how many went.
 */
export function goneStatements(d: SqlDialect, seen: string, run: number, name: string, now: string): Statement[] {
  return [
    statement(d, (sql) => `UPDATE sync_tenders SET gone_at = ${sql.value(now)} WHERE sync = ${sql.value(name)} AND gone_at IS NULL AND NOT ${seen}`),
    // This run's gone ones are those it marked now: looked up once, not once more against every staged id.
    statement(
      d,
      (sql) =>
        `INSERT INTO changes (run, sync, id, kind, at) SELECT ${sql.value(run)}, ${sql.value(name)}, id, 'gone', ${sql.value(now)} FROM sync_tenders
         WHERE sync = ${sql.value(name)} AND gone_at = ${sql.value(now, 'timestamp')} ORDER BY id`,
    ),
    statement(
      d,
      (sql) =>
        `UPDATE tenders SET gone_at = ${sql.value(now)} WHERE gone_at IS NULL
           AND id IN (SELECT id FROM sync_tenders WHERE sync = ${sql.value(name)} AND gone_at = ${sql.value(now, 'timestamp')})
           AND NOT EXISTS (SELECT 1 FROM sync_tenders m WHERE m.id = tenders.id AND m.gone_at IS NULL)`,
    ),
    // tender_cpv holds the codes of tenders not gone (cpvStatements).
    statement(
      d,
      (sql) =>
        `DELETE FROM tender_cpv WHERE id IN (SELECT id FROM sync_tenders WHERE sync = ${sql.value(name)} AND gone_at = ${sql.value(now, 'timestamp')})
           AND EXISTS (SELECT 1 FROM tenders t WHERE t.id = tender_cpv.id AND t.gone_at IS NOT NULL)`,
    ),
  ];
}

/** A full run saw every tender the sync still holds: their last sighting is now. */
export function lastSeen(d: SqlDialect, name: string, now: string): Statement {
  return statement(d, (sql) => `UPDATE sync_tenders SET last_seen = ${sql.value(now)} WHERE sync = ${sql.value(name)} AND gone_at IS NULL`);
}

/** The run's tenders new or back to the sync join it (`upsert` false: the sync holds no row, a baseline). */
export function joinSync(d: SqlDialect, delta: string, name: string, now: string, upsert = true): Statement {
  return statement(
    d,
    (sql) =>
      `INSERT INTO sync_tenders (sync, id, first_seen, last_seen) SELECT ${sql.value(name)}, id, ${sql.value(now)}, ${sql.value(now)} FROM ${delta} WHERE NOT held
       ${upsert ? 'ON CONFLICT (sync, id) DO UPDATE SET last_seen = excluded.last_seen, gone_at = NULL' : ''}`,
  );
}

/** The codes of the tenders the run wrote (`differs` in `delta`; every tender without it) made again from their `cpv` column. */
export function cpvStatements(d: SqlDialect, delta?: string): Statement[] {
  // The written tenders looked up by their key, not every tender asked whether it was written.
  const written = delta === undefined ? '' : `AND t.id IN (SELECT id FROM ${delta} WHERE differs)`;
  return [
    ...(delta === undefined ? [] : [{ sql: `DELETE FROM tender_cpv WHERE id IN (SELECT id FROM ${delta} WHERE differs)`, params: [] }]),
    // In key order: a table's worth of codes goes into the key's b-tree at its end, not at random places.
    {
      // Of tenders not gone only (count --by cpv reads the table alone): a gone tender's codes come back with it.
      sql: `INSERT INTO tender_cpv (id, code) SELECT t.id, e.value FROM tenders t CROSS JOIN ${d.elements('t.cpv', 'e')} WHERE t.cpv IS NOT NULL AND t.gone_at IS NULL ${written} ORDER BY t.id`,
      params: [],
    },
  ];
}

/** The meta row that says where the copy's CPV codes were read from (sql/reads.ts readCopyCpvPaths). */
export function saveCpvPaths(d: SqlDialect, paths: readonly string[]): Statement {
  return statement(
    d,
    (sql) => `INSERT INTO meta (key, value) VALUES (${sql.value(CPV_PATHS_KEY)}, ${sql.value(paths.join(','))}) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
  );
}

/** The `runs` row of a receipt (PostgreSQL adds RETURNING run). */
export function insertRun(d: SqlDialect, r: RunReceipt): Statement {
  return statement(d, (sql) => `INSERT INTO runs (${RUN_COLUMNS}) VALUES (${runRowValues(r, d.flag).map((v) => sql.value(v)).join(', ')})`);
}

/** A run's counts once its commit knows them. */
export function saveCounts(d: SqlDialect, run: number, c: RunCounts): Statement {
  return statement(d, (sql) => `UPDATE runs SET ${COUNT_COLUMNS.map((column, i) => `${column} = ${sql.value(countValues(c)[i])}`).join(', ')} WHERE run = ${sql.value(run)}`);
}

/** A complete run: the sync's definition as it ran, created now if it is new. */
export function saveSync(d: SqlDialect, sync: SyncDefinition, run: number, now: string): Statement {
  return statement(
    d,
    (sql) =>
      `INSERT INTO syncs (name, query, service, created, last_run, last_complete)
       VALUES (${sql.value(sync.name)}, ${sql.value(stringifyExact(sync.query))}, ${sql.value(sync.service)}, ${sql.value(now)}, ${sql.value(run)}, ${sql.value(now)})
       ON CONFLICT (name) DO UPDATE SET query = excluded.query, service = excluded.service, last_run = excluded.last_run,
         last_complete = excluded.last_complete`,
  );
}

/** An incomplete run: the sync (if it exists) points at its receipt, nothing else changes. */
export function saveLastRun(d: SqlDialect, name: string, run: number): Statement {
  return statement(d, (sql) => `UPDATE syncs SET last_run = ${sql.value(run)} WHERE name = ${sql.value(name)}`);
}
