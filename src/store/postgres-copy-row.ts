/**
 * A tender as a row of COPY's text format (the columns of COPY_COLUMNS, then
 * `tail`), and why PostgreSQL cannot store it, if it cannot: found here, it is
 * named, where the server's error would not say which tender.
 */

import { stringifyJson } from '../model/exact-json.js';
import { tenderColumns } from './columns.js';
import { beyondNumeric } from './numeric-range.js';
import { copyField } from './postgres-copy.js';
import { tsvectorText } from './postgres-fts.js';
import { utf8Longer } from './utf8.js';

/** The columns of a row, as COPY names them. */
export const COPY_COLUMNS = 'id, published, deadline, status, buyer_id, buyer_name, buyer_country, title, value_eur, cpv, doc_text, tsv';

/** `cpvPaths`: where the tender's CPV codes are read from (RunOptions.cpvPaths). */
export function copyRow(id: string, tender: Record<string, unknown>, tail: string, cpvPaths: readonly string[]): { text: string; unstorable?: Error } {
  const c = tenderColumns(id, tender, cpvPaths);
  const doc = stringifyJson(tender);
  let problem: Error | undefined;
  // A stage's jsonb is made at commit.
  if (doc.includes('\\') && UNSTORABLE.test(doc)) problem = unstorable(id, 'its document holds a NUL character or an unpaired surrogate (\\u0000, \\ud800)');
  const huge = beyondNumeric(tender);
  if (huge !== undefined) problem ??= unstorable(id, `its document holds a number beyond the range of PostgreSQL's numeric (${huge})`);
  if (indexed(id) === null) problem ??= unstorable(id, `its id is longer than an index holds (${INDEXED_BYTES} bytes)`);
  // One string per row, field by field: arrays of fields mapped and joined cost 70 ms of CPU in 50 000 rows.
  const text =
    `${copyField(id)}\t${copyField(c.published)}\t${copyField(c.deadline)}\t${copyField(indexed(c.status))}\t${copyField(c.buyerId)}\t` +
    `${copyField(indexed(c.buyerName))}\t${copyField(indexed(c.buyerCountry))}\t${copyField(c.title)}\t${copyField(c.valueEur)}\t${copyField(c.cpv)}\t` +
    // A tsvector's text here has nothing COPY escapes (tokens are letters and digits).
    `${copyJson(doc)}\t${tsvectorText(c.title, c.buyerName)}${tail}`;
  return problem ? { text, unstorable: problem } : { text };
}

/** In JSON text: a NUL character or an unpaired surrogate (JSON.stringify escapes both), which jsonb cannot hold. */
export const UNSTORABLE = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f])/i;

function unstorable(id: string, why: string): Error {
  const name = id.length > 80 ? `${id.slice(0, 80)}…` : id;
  return new Error(`tender ${JSON.stringify(name)} cannot be stored in PostgreSQL: ${why}; see docs/local-copy-postgres.md`);
}

/**
 * Bytes of a key a B-tree index entry of PostgreSQL surely holds: up to 2704 bytes of an entry,
 * compressed, less its header and the other columns of the membership's key (a sync name of 100).
 */
const INDEXED_BYTES = 2500;

/**
 * The value of an indexed text column, or NULL when longer than an index
 * holds (no real status, country or buyer name is): the document keeps it,
 * and count --by reads it from there.
 */
function indexed(value: string | null): string | null {
  return value !== null && utf8Longer(value, INDEXED_BYTES) ? null : value;
}

/** A document's JSON text as a COPY field: JSON escapes every control character, so only its backslashes are doubled. */
function copyJson(text: string): string {
  return text.includes('\\') ? text.replaceAll('\\', '\\\\') : text;
}
