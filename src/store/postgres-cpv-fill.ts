/**
 * Schema version 6 for a copy made before it: each tender's `cpv` read from
 * its document and its `tsv` made again with the buyer's words weighed B, in
 * one pass (each row written once, and only when one of them changes), then
 * tender_cpv from the codes. A schema migration (postgres-schema.ts): it runs
 * in the caller's transaction, a thousand tenders at a time through a cursor.
 */

import type pg from 'pg';
import { DEFAULT_CPV_PATHS } from '../model/cpv.js';
import { parseJson } from '../model/json-parse.js';
import { tenderColumns } from './columns.js';
import { tsvectorText } from './postgres-fts.js';
import { postgresDialect } from './sql/dialect.js';
import { cpvStatements } from './sql/writes.js';

const BATCH = 1000;

export async function fillCpvAndWeights(client: pg.ClientBase): Promise<void> {
  await client.query('DECLARE v6_fill NO SCROLL CURSOR FOR SELECT id, doc_text FROM tenders');
  for (;;) {
    const { rows } = await client.query<{ id: string; doc_text: string }>(`FETCH ${BATCH} FROM v6_fill`);
    if (rows.length === 0) break;
    // The title and the buyer's name from the document: their columns are NULL where an index cannot hold them (postgres-copy-row.ts).
    const columns = rows.map((r) => tenderColumns(r.id, parseJson(r.doc_text) as Record<string, unknown>, DEFAULT_CPV_PATHS));
    await client.query(
      `UPDATE tenders t SET cpv = u.cpv, tsv = u.tsv::tsvector FROM unnest($1::text[], $2::text[], $3::text[]) AS u(id, cpv, tsv)
       WHERE t.id = u.id AND (t.cpv IS DISTINCT FROM u.cpv OR t.tsv IS DISTINCT FROM u.tsv::tsvector)`,
      [columns.map((c) => c.id), columns.map((c) => c.cpv), columns.map((c) => tsvectorText(c.title, c.buyerName))],
    );
  }
  await client.query('CLOSE v6_fill');
  for (const s of cpvStatements(postgresDialect)) await client.query(s.sql, s.params);
}
