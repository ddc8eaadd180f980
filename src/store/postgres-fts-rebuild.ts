/**
 * Every tender's `tsv` made again from its title and buyer name, for a copy whose
 * tsvectors an older `tenders` wrote: before the words were cut and folded
 * exactly as SQLite's unicode61 does (src/store/unicode61.ts), Greek accents,
 * final sigmas, Cyrillic й ё ї, Hangul syllables and a few more were folded
 * otherwise, and a sync rewrites a tender's `tsv` only when its document
 * changes. Made to be a schema migration (src/store/postgres-schema.ts,
 * MIGRATIONS): it runs in the caller's transaction, a thousand tenders at a
 * time through a cursor, and writes only the rows whose tsvector changes.
 */

import type pg from 'pg';
import { tsvectorText } from './postgres-fts.js';

const BATCH = 1000;

/** Rewrites the `tsv` that differ from this build's; the number of tenders rewritten. Needs a transaction (a cursor). */
export async function rebuildTsv(client: pg.ClientBase): Promise<number> {
  // The buyer's name from the document: its column is NULL where an index cannot hold it (postgres-run.ts).
  await client.query(
    `DECLARE tsv_rebuild NO SCROLL CURSOR FOR SELECT id, title,
       CASE WHEN jsonb_typeof(doc -> 'buyer' -> 'name') = 'string' THEN doc -> 'buyer' ->> 'name' END AS buyer_name FROM tenders`,
  );
  let rewritten = 0;
  for (;;) {
    const { rows } = await client.query<{ id: string; title: string | null; buyer_name: string | null }>(`FETCH ${BATCH} FROM tsv_rebuild`);
    if (rows.length === 0) break;
    const { rowCount } = await client.query(
      `UPDATE tenders t SET tsv = u.tsv::tsvector FROM unnest($1::text[], $2::text[]) AS u(id, tsv)
       WHERE t.id = u.id AND t.tsv IS DISTINCT FROM u.tsv::tsvector`,
      [rows.map((r) => r.id), rows.map((r) => tsvectorText(r.title, r.buyer_name))],
    );
    rewritten += rowCount ?? 0;
  }
  await client.query('CLOSE tsv_rebuild');
  return rewritten;
}
