import type { Position } from '../contract/cursor.js';
import { compareKeys as compare, seek, type Key } from '../contract/keyset.js';
import { orgCount, orgPage, sortOrgs, type Organisation } from '../contract/organisations.js';
import { cappedTotal, TOTAL_CAP, type Total } from '../contract/page.js';
import { SORT_FIELDS } from '../model/local-selection.js';
import type { SortBy, SortOrder, TenderFilters } from '../contract/request.js';
import { TenderGenerator, type Buyer, type Tender } from './data.js';
import type { Random } from './random.js';

/**
 * A tender with its JSON rendered once, when first sent (rendering them all
 * would be most of the start-up): a page is a join of strings.
 */
export class Row {
  #json: string | undefined;
  #tender: Tender;

  constructor(tender: Tender) {
    this.#tender = tender;
  }

  get tender(): Tender {
    return this.#tender;
  }

  /** Replaces the tender (a changed copy): its JSON is rendered again when next sent. */
  set tender(tender: Tender) {
    this.#tender = tender;
    this.#json = undefined;
  }

  get json(): string {
    return (this.#json ??= JSON.stringify(this.#tender));
  }
}

const ORDERS: SortOrder[] = ['asc', 'desc'];
const DAY = 86_400_000;

export function sortKey(tender: Tender, sortBy: SortBy): Key | null {
  if (sortBy === 'publicationDate') return tender.publicationDate;
  if (sortBy === 'deadline') return tender.deadline;
  return tender.estimatedValue?.amountEur ?? null;
}

const rowKey = (sortBy: SortBy) => (r: Row): [Key, string] => [sortKey(r.tender, sortBy)!, r.tender.id];

/**
 * The rows that have the field, in ascending (key, id) order. `rows` are in id
 * order and the sort is stable, so comparing keys alone gives that order.
 */
function sortedRows(rows: Iterable<Row>, sortBy: SortBy): Row[] {
  const keyed: { key: Key; row: Row }[] = [];
  for (const row of rows) {
    const key = sortKey(row.tender, sortBy);
    if (key !== null) keyed.push({ key, row });
  }
  return keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((k) => k.row);
}

export function tenderMatcher(filters: TenderFilters, buyerId?: string): (t: Tender) => boolean {
  const countries = filters.buyerCountries && new Set(filters.buyerCountries);
  const statuses = filters.statuses && new Set(filters.statuses);
  const query = filters.query?.toLowerCase();
  const { minValue, maxValue, cpv } = filters;
  const byValue = minValue !== undefined || maxValue !== undefined;
  return (t) => {
    if (buyerId !== undefined && t.buyer.id !== buyerId) return false;
    if (countries && !countries.has(t.buyer.country)) return false;
    if (statuses && !statuses.has(t.status)) return false;
    if (query !== undefined && !t.title.toLowerCase().includes(query)) return false;
    if (cpv !== undefined && !t.cpv.startsWith(cpv)) return false;
    if (byValue) {
      const eur = t.estimatedValue?.amountEur;
      if (eur === undefined) return false;
      if (minValue !== undefined && eur < minValue) return false;
      if (maxValue !== undefined && eur > maxValue) return false;
    }
    return true;
  };
}

/**
 * The data set with one index per (sort field, order), each holding only the
 * tenders that have the field (spec 3.2 exclusions). Pages seek by keyset.
 * Changes move single rows in and out of the indexes (binary search and
 * splice): nothing is sorted again after the start.
 */
export class Store {
  /** Every row by id, in id order (ids only grow, Maps keep insertion order). */
  readonly #byId = new Map<string, Row>();
  readonly #indexes = new Map<string, Row[]>();
  readonly #counts = new Map<string, Total>();
  readonly #orgs: Organisation[];
  readonly #orgById: Map<string, Organisation>;
  readonly #generator: TenderGenerator;
  /** The newest publication date ever present (ms): inserts are published on it or after it. */
  #newestDay: number;
  /** Bumped on every change: caches keyed by it go stale. */
  version = 0;

  /** `today`: UTC midnight (ms) of the day the data is as of (default: NEWEST, fixed). */
  constructor(size: number, seed: number, today?: number) {
    this.#generator = new TenderGenerator(seed, today);
    this.#orgs = sortOrgs(this.#generator.buyers.map((b: Buyer) => ({ ...b, tenderCount: 0 })));
    this.#orgById = new Map(this.#orgs.map((o) => [o.id, o]));
    let newest = '';
    for (const tender of this.#generator.initial(size)) {
      this.#add(tender);
      if (tender.publicationDate > newest) newest = tender.publicationDate;
    }
    this.#newestDay = newest ? Date.parse(newest) : this.#generator.today;
    for (const sortBy of SORT_FIELDS) {
      const asc = sortedRows(this.#byId.values(), sortBy);
      this.#indexes.set(`${sortBy}:asc`, asc);
      this.#indexes.set(`${sortBy}:desc`, [...asc].reverse());
    }
  }

  get size(): number {
    return this.#byId.size;
  }

  /** How many tenders were ever generated: the number in the newest id. */
  get generated(): number {
    return this.#generator.count;
  }

  /** Up to `limit` rows after `after` (or from the start), and whether more follow. */
  page(sortBy: SortBy, order: SortOrder, match: (t: Tender) => boolean, limit: number, after?: Position) {
    const index = this.#indexes.get(`${sortBy}:${order}`)!;
    const rows: Row[] = [];
    let i = after ? seek(index, after, rowKey(sortBy), order) : 0;
    for (; i < index.length && rows.length <= limit; i++) if (match(index[i]!.tender)) rows.push(index[i]!);
    const more = rows.length > limit;
    if (more) rows.pop();
    const last = rows.at(-1);
    return { rows, next: more && last ? { key: sortKey(last.tender, sortBy)!, id: last.tender.id } : null };
  }

  /** The total of a query, counted once per `fingerprint` until the data changes. */
  count(fingerprint: string, sortBy: SortBy, match: (t: Tender) => boolean): Total {
    const cached = this.#counts.get(fingerprint);
    if (cached) return cached;
    const index = this.#indexes.get(`${sortBy}:asc`)!;
    let count = 0;
    for (let i = 0; i < index.length && count <= TOTAL_CAP; i++) if (match(index[i]!.tender)) count++;
    const total = cappedTotal(count);
    this.#counts.set(fingerprint, total);
    return total;
  }

  row(id: string): Row | undefined {
    return this.#byId.get(id);
  }

  /** Every row, in id order. */
  rows(): IterableIterator<Row> {
    return this.#byId.values();
  }

  /** Straightforward filter and sort, independent of the indexes: the truth tests compare against. */
  truth(sortBy: SortBy, order: SortOrder, match: (t: Tender) => boolean): Tender[] {
    const sign = order === 'asc' ? 1 : -1;
    return [...this.#byId.values()]
      .map((r) => r.tender)
      .filter((t) => sortKey(t, sortBy) !== null && match(t))
      .sort((a, b) => sign * compare(sortKey(a, sortBy)!, a.id, sortKey(b, sortBy)!, b.id));
  }

  org(id: string): Organisation | undefined {
    return this.#orgById.get(id);
  }

  orgPage(match: (o: Organisation) => boolean, limit: number, after?: Position) {
    return orgPage(this.#orgs, match, limit, after);
  }

  orgCount(match: (o: Organisation) => boolean): Total {
    return orgCount(this.#orgs, match);
  }

  orgTruth(match: (o: Organisation) => boolean): Organisation[] {
    return sortOrgs(this.#orgs.filter(match));
  }

  /** New tenders, published on the newest day, placed into every index: data changing under a reader. */
  insert(count: number): void {
    const rows: Row[] = [];
    for (let n = 0; n < count; n++) rows.push(this.#add(this.#generator.next(this.#newestDay)));
    this.#indexAll(rows);
    this.#changed();
  }

  /**
   * New tenders published the day after the newest present (so a walk by
   * publicationDate desc meets them first), drawn from `random`. Their ids.
   */
  publish(count: number, random: Random): string[] {
    if (count === 0) return [];
    this.#newestDay += DAY;
    const rows: Row[] = [];
    for (let n = 0; n < count; n++) rows.push(this.#add(this.#generator.next(this.#newestDay, random)));
    this.#indexAll(rows);
    this.#changed();
    return rows.map((r) => r.tender.id);
  }

  /** Replaces a tender by a changed copy (same id), moving it in the indexes whose key changed. */
  update(id: string, change: (t: Tender) => Tender): void {
    const row = this.#byId.get(id);
    if (!row) throw new Error(`no tender ${id}`);
    const before = row.tender;
    const after = change(structuredClone(before));
    if (after.id !== id || after.buyer.id !== before.buyer.id) throw new Error('an update keeps the id and the buyer');
    const moved = SORT_FIELDS.filter((f) => sortKey(before, f) !== sortKey(after, f));
    this.#index(row, false, moved);
    row.tender = after;
    this.#index(row, true, moved);
    this.#changed();
  }

  /** Deletes a tender from the data and every index. */
  remove(id: string): void {
    const row = this.#byId.get(id);
    if (!row) throw new Error(`no tender ${id}`);
    this.#index(row, false);
    this.#byId.delete(id);
    this.#orgById.get(row.tender.buyer.id)!.tenderCount--;
    this.#changed();
  }

  #changed(): void {
    this.#counts.clear();
    this.version++;
  }

  #add(tender: Tender): Row {
    const row = new Row(tender);
    this.#byId.set(tender.id, row);
    this.#orgById.get(tender.buyer.id)!.tenderCount++;
    return row;
  }

  /**
   * Puts new rows into every index: one splice each when few, else one copy of
   * each index with the new rows at the places a binary search found for them.
   */
  #indexAll(rows: Row[]): void {
    if (rows.length <= 32) {
      for (const row of rows) this.#index(row);
      return;
    }
    for (const sortBy of SORT_FIELDS) {
      const asc = sortedRows(rows, sortBy);
      if (asc.length === 0) continue;
      const keyOf = rowKey(sortBy);
      for (const order of ORDERS) {
        const list = this.#indexes.get(`${sortBy}:${order}`)!;
        const added = order === 'asc' ? asc : [...asc].reverse();
        const merged: Row[] = new Array(list.length + added.length);
        let i = 0;
        let k = 0;
        for (const row of added) {
          // Non-decreasing, as `added` is in the index's order.
          const at = seek(list, { key: sortKey(row.tender, sortBy)!, id: row.tender.id }, keyOf, order);
          while (i < at) merged[k++] = list[i++]!;
          merged[k++] = row;
        }
        while (i < list.length) merged[k++] = list[i++]!;
        this.#indexes.set(`${sortBy}:${order}`, merged);
      }
    }
  }

  /** Puts `row` into (or takes it out of) the indexes of `fields` it has a key for. */
  #index(row: Row, add = true, fields: SortBy[] = SORT_FIELDS): void {
    for (const sortBy of fields) {
      const key = sortKey(row.tender, sortBy);
      if (key === null) continue;
      const pos = { key, id: row.tender.id };
      for (const order of ORDERS) {
        const list = this.#indexes.get(`${sortBy}:${order}`)!;
        // The first index past `pos`: the row itself, when present, is just before it.
        const at = seek(list, pos, rowKey(sortBy), order);
        if (add) list.splice(at, 0, row);
        else if (list[at - 1] === row) list.splice(at - 1, 1);
        else throw new Error(`the ${sortBy}:${order} index lost ${row.tender.id}`);
      }
    }
  }
}
