/**
 * A LocalSelection as SQL, once for both engines: the FROM/WHERE that select
 * and count use, and the service's order (spec 3.2: the sort field's default
 * order, ties by id in the same direction, tenders without the sort field
 * left out). Each field of a selection is one row of SELECTION_FIELDS: how it
 * selects (one of its values, a bound, full-text words, a code prefix) and on
 * which column. A filter on a column the copy has is a row here and its row in
 * the filter table (src/query/tender-filters.ts); docs/adding-a-filter.md.
 */

import { SORT_DEFAULT_ORDER, type LocalSelection } from '../../model/local-selection.js';
import { timestamp } from '../columns.js';
import { Sql, type FtsTarget, type SqlDialect } from './dialect.js';

/** How one field of a selection selects tenders. */
export type FieldRule =
  /** The column is one of the field's values. */
  | { kind: 'any'; column: string }
  /** The column is at least (`min`) or at most (`max`) the field's value, compared as `type`. */
  | { kind: 'min' | 'max'; column: string; type: 'timestamp' | 'number' }
  /** The full-text query (FTS5 syntax) matches the words of `target`. */
  | { kind: 'words'; target: FtsTarget }
  /** Any of the tender's CPV codes (the side table tender_cpv) starts with any of the field's prefixes. */
  | { kind: 'codePrefix' }
  /** One of the syncs of the field's values holds the tender (sync_tenders, not gone). */
  | { kind: 'heldBy' };

/** The fields of a selection that select (sync joins, sortBy and sortOrder order). */
export type SelectingField = Exclude<keyof LocalSelection, 'sync' | 'sortBy' | 'sortOrder'>;

/** Every selecting field's rule: the type checker asks for a row when LocalSelection gains a field. */
export const SELECTION_FIELDS: Record<SelectingField, FieldRule> = {
  words: { kind: 'words', target: 'all' },
  countries: { kind: 'any', column: 'buyer_country' },
  statuses: { kind: 'any', column: 'status' },
  publishedSince: { kind: 'min', column: 'published', type: 'timestamp' },
  publishedUntil: { kind: 'max', column: 'published', type: 'timestamp' },
  deadlineAfter: { kind: 'min', column: 'deadline', type: 'timestamp' },
  deadlineBefore: { kind: 'max', column: 'deadline', type: 'timestamp' },
  minValueEur: { kind: 'min', column: 'value_eur', type: 'number' },
  maxValueEur: { kind: 'max', column: 'value_eur', type: 'number' },
  cpv: { kind: 'codePrefix' },
  buyerIds: { kind: 'any', column: 'buyer_id' },
  buyerName: { kind: 'words', target: 'buyer_name' },
  syncs: { kind: 'heldBy' },
};

/**
 * How a full-text query, or a code prefix, meets the order (SQLite;
 * PostgreSQL's planner chooses alone). `matches`: the matching rows are found
 * first, then sorted: fast when they are few. `probe`: an index in the order
 * is walked and each tender asked whether it matches, stopping at a page: fast
 * when they are many (sorting 100 000 matches for 20 is not).
 */
export type FtsPlan = 'matches' | 'probe';

/** The plan of the words (which walks the order's own index) and of the codes (the planner's pick: the order's, or a country's by date). */
export interface Plans {
  words?: FtsPlan;
  codes?: FtsPlan;
}

export interface Order {
  column: 'published' | 'deadline' | 'value_eur';
  direction: 'asc' | 'desc';
}

const SORT_COLUMN = { publicationDate: 'published', deadline: 'deadline', estimatedValue: 'value_eur' } as const;

export function orderOf(selection: LocalSelection): Order {
  const sortBy = selection.sortBy ?? 'publicationDate';
  return { column: SORT_COLUMN[sortBy], direction: selection.sortOrder ?? SORT_DEFAULT_ORDER[sortBy] };
}

/** Full-text words that select: given and not blank. */
export function hasWords(words: string | undefined): words is string {
  return words !== undefined && words.trim() !== '';
}

/**
 * `FROM tenders t ... WHERE ...` of a selection: the tenders not gone (of one
 * sync: those it holds), filtered. `sorted`: also without the tenders the
 * order leaves out (select always; count when a sort is given, as the service
 * counts what it would return). `plans`: SQLite's (see FtsPlan).
 * `join`: a table joined to each selected tender (its rows, as `c`, by `c.id`).
 */
export function fromWhere(selection: LocalSelection, sorted: boolean, sql: Sql, plans: Plans = {}, join?: string): string {
  const probe = plans.words === 'probe';
  let from = probe ? `FROM tenders t INDEXED BY tenders_${orderOf(selection).column}` : 'FROM tenders t';
  if (selection.sync !== undefined) from += ` JOIN sync_tenders m ON m.id = t.id AND m.sync = ${sql.value(selection.sync)} AND m.gone_at IS NULL`;
  if (join !== undefined) from += ` JOIN ${join} c ON c.id = t.id`;
  // Implied by an active membership too; said always, so the partial indexes (WHERE gone_at IS NULL) apply.
  const where = ['t.gone_at IS NULL'];
  for (const [field, rule] of Object.entries(SELECTION_FIELDS) as [SelectingField, FieldRule][]) {
    const plan = field === 'words' ? plans.words : field === 'cpv' ? plans.codes : undefined;
    const condition = fieldCondition(rule, selection[field], sql, plan === 'probe');
    if (condition !== undefined) where.push(condition);
  }
  if (sorted || selection.sortBy !== undefined) where.push(`t.${orderOf(selection).column} IS NOT NULL`);
  return `${from} WHERE ${where.join(' AND ')}`;
}

/** Whether the selection keeps every tender not gone: no sync, no field that selects, no sort field to have. */
export function keepsAll(selection: LocalSelection, dialect: SqlDialect): boolean {
  const sql = new Sql(dialect);
  return (
    selection.sync === undefined &&
    selection.sortBy === undefined &&
    (Object.entries(SELECTION_FIELDS) as [SelectingField, FieldRule][]).every(([field, rule]) => fieldCondition(rule, selection[field], sql, false) === undefined)
  );
}

/** The condition of one field's value by its rule; undefined when the value selects nothing (absent, empty, blank words). `probe`: asked of one tender at a time. */
function fieldCondition(rule: FieldRule, value: unknown, sql: Sql, probe: boolean): string | undefined {
  if (value === undefined) return undefined;
  switch (rule.kind) {
    case 'any':
      return (value as unknown[]).length ? sql.dialect.anyOf(`t.${rule.column}`, value as unknown[], sql, 'text') : undefined;
    case 'min':
    case 'max': {
      const bound = rule.type === 'timestamp' ? timestamp(value) : value;
      return bound === null ? undefined : `t.${rule.column} ${rule.kind === 'min' ? '>=' : '<='} ${sql.value(bound, rule.type)}`;
    }
    case 'words':
      return hasWords(value as string) ? sql.dialect.matches(rule.target, value as string, sql, probe) : undefined;
    case 'codePrefix': {
      const prefixes = value as string[];
      if (!prefixes.length) return undefined;
      const ranges = prefixes.map(codeRange).map(([from, to]) => `(c.code >= ${sql.value(from)} AND c.code < ${sql.value(to)})`);
      return probe
        ? `EXISTS (SELECT 1 FROM tender_cpv c WHERE c.id = t.id AND (${ranges.join(' OR ')}))`
        : `t.id IN (SELECT c.id FROM tender_cpv c WHERE ${ranges.join(' OR ')})`;
    }
    case 'heldBy':
      return `t.id IN (SELECT h.id FROM sync_tenders h WHERE ${sql.dialect.anyOf('h.sync', value as string[], sql, 'text')} AND h.gone_at IS NULL)`;
  }
}

/** The codes under a prefix as a range of the code index: `45` is [45, 46). */
export function codeRange(prefix: string): [string, string] {
  return [prefix, `${prefix.slice(0, -1)}${String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)}`];
}

/** ORDER BY of the selection's order. */
export function orderBy(order: Order): string {
  return `ORDER BY t.${order.column} ${order.direction}, t.id ${order.direction}`;
}

/** The keyset condition "after `key`" (a row value of the sort value and id) in the order's direction. */
export function afterCondition(order: Order, key: string): string {
  return `(t.${order.column}, t.id) ${order.direction === 'desc' ? '<' : '>'} ${key}`;
}
