/**
 * The copy's CPV codes follow the cpv-paths setting of the sync that writes
 * it. A copy records the paths its codes were read from (meta `cpv_paths`;
 * none: the default). A sync that reads its tenders' codes from other paths
 * reads every stored tender's codes again in its commit's transaction, a
 * thousand documents at a time, and rewrites those that change (their `cpv`
 * and tender_cpv rows), then records its paths: the copy never holds codes
 * of two settings. Reads (--local, serve) only read what it holds.
 */

import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import { sameCpvPaths } from '../model/cpv.js';
import { parseJson } from '../model/json-parse.js';
import { cpvColumn } from './columns.js';
import { postgresDialect, sqliteDialect, statement, type SqlDialect, type Statement } from './sql/dialect.js';
import { CPV_PATHS_KEY, recordedCpvPaths } from './sql/reads.js';
import { saveCpvPaths } from './sql/writes.js';

const BATCH = 1000;

/**
 * The tenders whose codes may differ under `paths`: those with codes now, and those whose
 * document holds the last key of a path as JSON writes a key (a cheap test of the text, no parse).
 */
function candidates(d: SqlDialect, paths: readonly string[]): Statement {
  return statement(d, (sql) => {
    const keys = [...new Set(paths.map((path) => JSON.stringify(path.slice(path.lastIndexOf('.') + 1))))];
    const like = keys.map((key) => `${d.docText} LIKE ${sql.value(`%${key.replace(/[\\%_]/g, '\\$&')}%`)} ESCAPE '\\'`);
    return `cpv IS NOT NULL OR ${like.join(' OR ')}`;
  });
}

/** The copy's recorded paths when they are not `paths` (so every code is to be read again); undefined when they are. */
function differing(recorded: unknown, paths: readonly string[]): readonly string[] | undefined {
  const before = recordedCpvPaths(recorded);
  return sameCpvPaths(before, paths) ? undefined : before;
}

/**
 * In a SQLite run's transaction: every stored tender's codes read again with `paths` when the
 * copy's were read with others (the `cpv` column and the tender_cpv rows of those whose codes
 * change), and `paths` recorded. Returns the paths the codes were read with before, or
 * undefined when they were `paths` already (nothing done).
 */
export function recodeSqlite(db: BetterSqlite3.Database, paths: readonly string[]): readonly string[] | undefined {
  const before = differing(db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(CPV_PATHS_KEY), paths);
  if (before === undefined) return undefined;
  const where = candidates(sqliteDialect, paths);
  const read = db.prepare(`SELECT seq, id, doc, cpv, gone_at IS NOT NULL FROM tenders WHERE seq > ? AND (${where.sql}) ORDER BY seq LIMIT ${BATCH}`).raw();
  const write = db.prepare('UPDATE tenders SET cpv = ? WHERE seq = ?');
  const forget = db.prepare('DELETE FROM tender_cpv WHERE id = ?');
  const add = db.prepare('INSERT INTO tender_cpv (id, code) VALUES (?, ?)');
  for (let after = 0; ; ) {
    const rows = read.all(after, ...where.params) as [number, string, string, string | null, number][];
    for (const [seq, id, doc, cpv, gone] of rows) {
      const now = cpvColumn(parseJson(doc) as Record<string, unknown>, paths);
      if (now === cpv) continue;
      write.run(now, seq);
      forget.run(id);
      // tender_cpv holds the codes of tenders that are not gone (a gone one's come back with it).
      if (!gone) for (const code of now === null ? [] : (JSON.parse(now) as string[])) add.run(id, code);
    }
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1]![0];
  }
  const save = saveCpvPaths(sqliteDialect, paths);
  db.prepare(save.sql).run(...save.params);
  return before;
}

/** As recodeSqlite, in a PostgreSQL run's transaction (a cursor reads the documents, each batch's changes written at once). */
export async function recodePostgres(client: pg.ClientBase, paths: readonly string[]): Promise<readonly string[] | undefined> {
  const { rows: meta } = await client.query<{ value: string }>('SELECT value FROM meta WHERE key = $1', [CPV_PATHS_KEY]);
  const before = differing(meta[0]?.value, paths);
  if (before === undefined) return undefined;
  const where = candidates(postgresDialect, paths);
  await client.query(`DECLARE cpv_recode NO SCROLL CURSOR FOR SELECT id, doc_text, cpv, gone_at IS NOT NULL AS gone FROM tenders WHERE ${where.sql}`, where.params);
  for (;;) {
    const { rows } = await client.query<{ id: string; doc_text: string; cpv: string | null; gone: boolean }>(`FETCH ${BATCH} FROM cpv_recode`);
    if (rows.length === 0) break;
    const changed = rows.map((r) => ({ id: r.id, cpv: cpvColumn(parseJson(r.doc_text) as Record<string, unknown>, paths), was: r.cpv, gone: r.gone })).filter((r) => r.cpv !== r.was);
    if (changed.length === 0) continue;
    const values = [changed.map((r) => r.id), changed.map((r) => r.cpv)];
    const live = changed.filter((r) => !r.gone);
    await client.query('UPDATE tenders t SET cpv = u.cpv FROM unnest($1::text[], $2::text[]) AS u(id, cpv) WHERE t.id = u.id', values);
    await client.query('DELETE FROM tender_cpv WHERE id = ANY($1::text[])', [values[0]]);
    await client.query(
      `INSERT INTO tender_cpv (id, code) SELECT u.id, e.value FROM unnest($1::text[], $2::text[]) AS u(id, cpv) CROSS JOIN ${postgresDialect.elements('u.cpv', 'e')}
       WHERE u.cpv IS NOT NULL ORDER BY u.id`,
      [live.map((r) => r.id), live.map((r) => r.cpv)],
    );
  }
  await client.query('CLOSE cpv_recode');
  const save = saveCpvPaths(postgresDialect, paths);
  await client.query(save.sql, save.params);
  return before;
}
