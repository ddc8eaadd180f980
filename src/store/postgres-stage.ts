/**
 * A PostgreSQL run's TEMP tables: `stage` (the COPied pages, repeats
 * included) and `delta` (the staged tenders new to the sync, or whose
 * document is new, changed or back), compared as pages come; and the
 * `changed` rows the commit records from them.
 */

import type pg from 'pg';
import { fieldChangeRows, type Changed, type DifferingRow } from './sql/writes.js';
import type { RunMode } from './store.js';

/** Rows the change pass reads at a time: the transaction's memory stays flat. */
const DIFF_BATCH = 500;

/** Makes the run's TEMP tables, on its connection (gone with it). */
export async function createStage(client: pg.ClientBase): Promise<void> {
  // Indexed by n (each COPY's rows) and id (repeats, the comparisons, the commit's joins) as the rows come in.
  await client.query(`CREATE TEMP TABLE stage (n bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, id text COLLATE "C" NOT NULL,
    published timestamptz, deadline timestamptz, status text, buyer_id text, buyer_name text, buyer_country text, title text,
    value_eur numeric, cpv text, doc_text text NOT NULL, tsv tsvector NOT NULL);
    CREATE INDEX stage_id ON stage (id);
    CREATE TEMP TABLE delta (id text COLLATE "C" PRIMARY KEY, held boolean NOT NULL, differs boolean NOT NULL, stored boolean NOT NULL)`);
}

/**
 * Compares the staged rows after `from` with the stored tenders, into
 * `delta`: the staged tenders the sync does not hold (`held` false) and
 * those whose document is not stored as it is now (`differs`: new, changed,
 * or back after it was gone; `stored`: a row of tenders holds the id). A
 * new-only run looks at the first kind only (the sync's own tenders are left
 * as they are). A later copy of an id replaces its row; returns how many
 * rows repeated an id staged before them.
 */
export async function compareStage(client: pg.ClientBase, sync: string, mode: RunMode, from: number, to: number): Promise<number> {
  // Lookups per staged row (scalar subqueries, by index), whatever the planner guesses of a stage it has no
  // statistics of: joins (or hashed EXISTS) planned from those guesses read every row of the stage or a table per COPY.
  const { rows } = await client.query<{ n: string }>(
    `WITH batch AS (
       SELECT DISTINCT ON (s.id) s.id,
         (SELECT true FROM sync_tenders m WHERE m.sync = $1 AND m.id = s.id AND m.gone_at IS NULL) IS NOT NULL AS held,
         (SELECT t.gone_at IS NULL AND t.doc_text = s.doc_text FROM tenders t WHERE t.id = s.id) AS same
       FROM stage s WHERE s.n BETWEEN $2 AND $3 ORDER BY s.id, s.n DESC),
     compared AS (
       INSERT INTO delta (id, held, differs, stored)
       SELECT id, held, same IS NOT TRUE, same IS NOT NULL FROM batch WHERE NOT held ${mode === 'full' ? 'OR same IS NOT TRUE' : ''}
       ON CONFLICT (id) DO UPDATE SET held = excluded.held, differs = excluded.differs, stored = excluded.stored)
     SELECT count((SELECT true FROM stage o WHERE o.id = s.id AND o.n < s.n LIMIT 1)) AS n
     FROM stage s WHERE s.n BETWEEN $2 AND $3`,
    [sync, from + 1, to],
  );
  return Number(rows[0]!.n);
}

/**
 * One `changed` row per changed field of every staged tender whose stored
 * document differs, whichever sync stored it (see sqlite-run.ts). Returns
 * how many tenders changed, and how many of them the sync held.
 */
export async function recordFieldChanges(client: pg.ClientBase, run: number, sync: string, now: string): Promise<Changed> {
  const counted: Changed = { changed: 0, held: 0 };
  let after = '';
  for (;;) {
    const { rows } = await client.query<DifferingRow>({
      text: `SELECT d.id, t.doc_text, s.doc_text, d.held FROM delta d JOIN stage s ON s.id = d.id JOIN tenders t ON t.id = d.id
       WHERE d.differs AND d.id > $1 AND t.doc_text <> s.doc_text ORDER BY d.id LIMIT ${DIFF_BATCH}`,
      values: [after],
      rowMode: 'array',
    });
    const found = fieldChangeRows(rows);
    counted.changed += found.changed;
    counted.held += found.held;
    const columns = [0, 1, 2, 3].map((i) => found.changes.map((change) => change[i]));
    if (found.changes.length > 0) {
      await client.query(
        `INSERT INTO changes (run, sync, id, kind, field, old, new, at)
         SELECT $1, $2, u.id, 'changed', u.f, u.o::json, u.n::json, $3
         FROM unnest($4::text[], $5::text[], $6::text[], $7::text[]) WITH ORDINALITY AS u(id, f, o, n, i) ORDER BY u.i`,
        [run, sync, now, ...columns],
      );
    }
    if (rows.length < DIFF_BATCH) return counted;
    after = rows[rows.length - 1]![0];
  }
}
