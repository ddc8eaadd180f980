import { plainValue } from '../model/exact-json.js';
import { compilePaths, valueAt } from '../model/paths.js';
import { type SortOrder } from '../query/validate.js';
import { SORT_DEFAULT_ORDER, SORT_FIELDS, type SortField } from '../model/local-selection.js';


/**
 * Where a tender carries the value it is sorted by. The spec names the
 * properties, not the fields: these are the sandbox's (and our assumption of
 * the service's); --sort-path / TENDERS_SORT_PATHS change them.
 */
export const DEFAULT_SORT_PATHS: Record<SortField, string> = {
  publicationDate: 'publicationDate',
  deadline: 'deadline',
  estimatedValue: 'estimatedValue.amountEur',
};

/** A result's place in the order: its sort value and its id (the tie-break). */
export interface Placed {
  key: number | string;
  id: unknown;
}

/** How the service orders a query's results, as the merge reads it from each result. */
export class ResultOrder {
  readonly field: SortField;
  readonly order: SortOrder;
  readonly path: string;
  readonly #path: string[];
  readonly #sign: number;

  constructor(body: Record<string, unknown>, paths: Partial<Record<SortField, string>> = {}) {
    this.field = SORT_FIELDS.find((f) => f === body.sortBy) ?? 'publicationDate';
    this.order = body.sortOrder === 'asc' || body.sortOrder === 'desc' ? body.sortOrder : SORT_DEFAULT_ORDER[this.field];
    this.path = paths[this.field] ?? DEFAULT_SORT_PATHS[this.field];
    this.#path = compilePaths([this.path])[0]!;
    this.#sign = this.order === 'asc' ? 1 : -1;
  }

  /** The result's sort value and id, or undefined when it has no usable sort value. */
  place(item: Record<string, unknown>): Placed | undefined {
    // Long numbers are ordered by their nearest double, as before they kept their digits.
    const value = plainValue(valueAt(item, this.#path));
    const id = plainValue(item.id);
    if (typeof value === 'number' || typeof value === 'string') return { key: value, id };
    if (typeof value === 'bigint') return { key: Number(value), id };
    return undefined;
  }

  /** Negative when `a` comes first in the service's order: the sort value, then the id, both in the sort's direction. */
  compare(a: Placed, b: Placed): number {
    return this.#sign * (compareValues(a.key, b.key) || compareValues(a.id, b.id));
  }

  describe(): string {
    return `${this.field} ${this.order} (read from ${this.path})`;
  }
}

/** Numbers by value; anything else by its text in code-unit order (ISO 8601 dates of one form sort by time). */
function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  const x = a === undefined || a === null ? '' : String(a);
  const y = b === undefined || b === null ? '' : String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
