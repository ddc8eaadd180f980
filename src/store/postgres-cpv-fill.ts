/**
 * The CPV codes of the tenders of a copy made before they were kept (schema
 * version 6): each tender's `cpv` from its document, and tender_cpv from
 * those. A schema migration (postgres-schema.ts): it runs in the caller's
 * transaction, a thousand tenders at a time through a cursor.
 */

import type pg from 'pg';
import { parseJson } from '../model/json-parse.js';
import { tenderColumns } from './columns.js';
import { postgresDialect } from './sql/dialect.js';
import { cpvStatements } from './sql/writes.js';

const BATCH = 1000;

export async function fillCpv(client: pg.ClientBase): Promise<void> {
  // Only a document that says "cpv" can hold codes where tenders reads them (model/cpv.ts DEFAULT_CPV_PATHS).
  await client.query("DECLARE cpv_fill NO SCROLL CURSOR FOR SELECT id, doc_text FROM tenders WHERE doc_text LIKE '%cpv%'");
  for (;;) {
    const { rows } = await client.query<{ id: string; doc_text: string }>(`FETCH ${BATCH} FROM cpv_fill`);
    if (rows.length === 0) break;
    const found = rows.flatMap((r) => {
      const { cpv } = tenderColumns(r.id, parseJson(r.doc_text) as Record<string, unknown>);
      return cpv === null ? [] : [[r.id, cpv] as const];
    });
    if (found.length > 0) {
      await client.query('UPDATE tenders t SET cpv = u.cpv FROM unnest($1::text[], $2::text[]) AS u(id, cpv) WHERE t.id = u.id', [
        found.map(([id]) => id),
        found.map(([, cpv]) => cpv),
      ]);
    }
  }
  await client.query('CLOSE cpv_fill');
  for (const s of cpvStatements(postgresDialect)) await client.query(s.sql, s.params);
}
