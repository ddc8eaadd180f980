/**
 * A LocalSelection as PostgreSQL SQL, with the answers of the SQLite engine
 * (sqlite-select.ts): the same filters, the service's order with ties by id,
 * text compared byte by byte (the columns are COLLATE "C").
 */

import type { LocalSelection } from '../model/local-selection.js';
import { timestamp } from './columns.js';
import { tsquery } from './postgres-fts.js';
import { orderOf, type Order } from './sqlite-select.js';

export { orderOf, type Order };

/** Parameters of one statement: `add` returns the placeholder of a value. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * The value at dot path `keys` of a JSON document (`doc`, of json or jsonb: `typeOf` is its
 * json_typeof), stepping into objects only, as a dot path does everywhere else (--columns,
 * SQLite's JSON paths): PostgreSQL's #> takes a key of digits as an index into an array.
 */
export function objectPath(doc: string, typeOf: 'json_typeof' | 'jsonb_typeof', keys: readonly string[], params: Params): string {
  const at = (n: number) => `${doc} #> ${params.add(keys.slice(0, n))}::text[]`;
  // What #> reads as an index (strtol's way): spaces first, a sign, digits.
  const objects = keys.flatMap((key, i) => (i > 0 && /^\s*[+-]?\d+$/.test(key) ? [`${typeOf}(${at(i)}) = 'object'`] : []));
  return objects.length > 0 ? `CASE WHEN ${objects.join(' AND ')} THEN ${at(keys.length)} END` : `(${at(keys.length)})`;
}

/** `FROM tenders t ... WHERE ...` of a selection (see sqlite-select.ts fromWhere). */
export function fromWhere(selection: LocalSelection, sorted: boolean, params: Params): string {
  const where: string[] = ['t.gone_at IS NULL'];
  let sql = 'FROM tenders t';
  if (selection.sync !== undefined) sql += ` JOIN sync_tenders m ON m.id = t.id AND m.sync = ${params.add(selection.sync)} AND m.gone_at IS NULL`;
  if (selection.words !== undefined && selection.words.trim() !== '') {
    const query = tsquery(selection.words);
    where.push(query === null ? 'false' : `t.tsv @@ ${params.add(query)}::tsquery`);
  }
  if (selection.countries?.length) where.push(`t.buyer_country = ANY(${params.add(selection.countries)}::text[])`);
  if (selection.buyerIds?.length) where.push(`t.buyer_id = ANY(${params.add(selection.buyerIds)}::text[])`);
  if (selection.statuses?.length) where.push(`t.status = ANY(${params.add(selection.statuses)}::text[])`);
  const date = (value: string | undefined) => (value === undefined ? null : timestamp(value));
  range(where, params, 't.published', 'timestamptz', date(selection.publishedSince), date(selection.publishedUntil));
  range(where, params, 't.deadline', 'timestamptz', date(selection.deadlineAfter), date(selection.deadlineBefore));
  range(where, params, 't.value_eur', 'numeric', selection.minValueEur ?? null, selection.maxValueEur ?? null);
  if (sorted || selection.sortBy !== undefined) where.push(`t.${orderOf(selection).column} IS NOT NULL`);
  return `${sql} WHERE ${where.join(' AND ')}`;
}

export function orderBy(order: Order): string {
  return `ORDER BY t.${order.column} ${order.direction}, t.id ${order.direction}`;
}

/** The keyset condition "after the tender with id `$id`" in the order's direction. */
export function afterCondition(order: Order, id: string): string {
  return `(t.${order.column}, t.id) ${order.direction === 'desc' ? '<' : '>'} (SELECT a.${order.column}, a.id FROM tenders a WHERE a.id = ${id})`;
}

/** The keyset condition "after the position (`$key`, `$id`)", the key of the order's column (store.ts SortPosition). */
export function afterPosition(order: Order, key: string, id: string): string {
  const type = order.column === 'value_eur' ? 'numeric' : 'timestamptz';
  return `(t.${order.column}, t.id) ${order.direction === 'desc' ? '<' : '>'} (${key}::${type}, ${id}::text)`;
}

function range(where: string[], params: Params, column: string, type: string, low: unknown, high: unknown): void {
  if (low !== null) where.push(`${column} >= ${params.add(low)}::${type}`);
  if (high !== null) where.push(`${column} <= ${params.add(high)}::${type}`);
}
