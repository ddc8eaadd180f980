/**
 * A LocalSelection as SQLite SQL: the FROM/WHERE both select and count use,
 * and the service's order (spec 3.2: the sort field's default order, ties by
 * id in the same direction, tenders without the sort field left out).
 */

import { SORT_DEFAULT_ORDER, type LocalSelection } from '../model/local-selection.js';
import { timestamp } from './columns.js';

export interface SqlPart {
  sql: string;
  params: unknown[];
}

/**
 * How a full-text query meets the order. `matches`: the matching rows are
 * found first, then sorted: fast when they are few. `probe`: the sort index is
 * walked and each tender asked whether it matches, stopping at a page: fast
 * when they are many (sorting 100 000 matches for 20 is not).
 */
export type FtsPlan = 'matches' | 'probe';

/** Matches from which a page is found by walking the order (see FtsPlan). */
export const PROBE_FROM = 2000;
/**
 * ...and that are at least one tender in this many: sparser matches cost a
 * probe (a full-text query) per tender walked past, about this many per match.
 * 'cleaning services', 2 500 of 200 000 tenders: 260 ms probing, 20 ms sorting.
 */
export const PROBE_DENSITY = 10;

export interface Order {
  column: 'published' | 'deadline' | 'value_eur';
  direction: 'asc' | 'desc';
}

const SORT_COLUMN = { publicationDate: 'published', deadline: 'deadline', estimatedValue: 'value_eur' } as const;

export function orderOf(selection: LocalSelection): Order {
  const sortBy = selection.sortBy ?? 'publicationDate';
  return { column: SORT_COLUMN[sortBy], direction: selection.sortOrder ?? SORT_DEFAULT_ORDER[sortBy] };
}

/**
 * `FROM tenders t ... WHERE ...` of a selection: the tenders not gone (of one
 * sync: those it holds), filtered. `sorted`: also without the tenders the
 * order leaves out (select always; count when a sort is given, as the service
 * counts what it would return).
 */
export function fromWhere(selection: LocalSelection, sorted: boolean, fts: FtsPlan = 'matches'): SqlPart {
  const where: string[] = [];
  const params: unknown[] = [];
  let sql = fts === 'probe' ? `FROM tenders t INDEXED BY tenders_${orderOf(selection).column}` : 'FROM tenders t';
  if (selection.sync !== undefined) {
    sql += ' JOIN sync_tenders m ON m.id = t.id AND m.sync = ? AND m.gone_at IS NULL';
    params.push(selection.sync);
  }
  // Implied by an active membership too; said always, so the partial indexes (WHERE gone_at IS NULL) apply.
  where.push('t.gone_at IS NULL');
  if (selection.words !== undefined && selection.words.trim() !== '') {
    where.push(
      fts === 'probe'
        ? 'EXISTS (SELECT 1 FROM tenders_fts f WHERE tenders_fts MATCH ? AND f.rowid = t.seq)'
        : 't.seq IN (SELECT rowid FROM tenders_fts WHERE tenders_fts MATCH ?)',
    );
    params.push(selection.words);
  }
  if (selection.countries?.length) {
    where.push(`t.buyer_country IN (${marks(selection.countries.length)})`);
    params.push(...selection.countries);
  }
  if (selection.buyerIds?.length) {
    where.push(`t.buyer_id IN (${marks(selection.buyerIds.length)})`);
    params.push(...selection.buyerIds);
  }
  if (selection.statuses?.length) {
    where.push(`t.status IN (${marks(selection.statuses.length)})`);
    params.push(...selection.statuses);
  }
  range(where, params, 't.published', timestamp(selection.publishedSince ?? null), timestamp(selection.publishedUntil ?? null));
  range(where, params, 't.deadline', timestamp(selection.deadlineAfter ?? null), timestamp(selection.deadlineBefore ?? null));
  range(where, params, 't.value_eur', selection.minValueEur ?? null, selection.maxValueEur ?? null);
  if (sorted || selection.sortBy !== undefined) where.push(`t.${orderOf(selection).column} IS NOT NULL`);
  return { sql: `${sql} WHERE ${where.join(' AND ')}`, params };
}

/** ORDER BY of the selection's order. */
export function orderBy(order: Order): string {
  return `ORDER BY t.${order.column} ${order.direction}, t.id ${order.direction}`;
}

/** The keyset condition "after (key, id)" in the order's direction. */
export function afterCondition(order: Order): string {
  return `(t.${order.column}, t.id) ${order.direction === 'desc' ? '<' : '>'} (?, ?)`;
}

function range(where: string[], params: unknown[], column: string, low: unknown, high: unknown): void {
  if (low !== null) {
    where.push(`${column} >= ?`);
    params.push(low);
  }
  if (high !== null) {
    where.push(`${column} <= ?`);
    params.push(high);
  }
}

function marks(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}
