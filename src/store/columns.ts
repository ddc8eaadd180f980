/**
 * The typed columns of a stored tender, taken from its document: what local
 * queries filter and sort on, and what sqlite3/Datasette users read. Shared by
 * both engines so they store the same values.
 */

import { isObject, RawNumber, stringifyJson } from '../model/exact-json.js';
import { tenderCpvCodes } from '../model/cpv.js';
import { readInstant } from '../model/instant.js';
import type { SortPosition } from './store.js';

export interface TenderColumns {
  id: string;
  /** UTC ISO timestamps (a value that does not parse as a date is kept as sent). */
  published: string | null;
  deadline: string | null;
  status: string | null;
  buyerId: string | null;
  buyerName: string | null;
  buyerCountry: string | null;
  title: string | null;
  valueEur: number | null;
  /** The tender's CPV codes (model/cpv.ts tenderCpvCodes) as a JSON array's text; NULL without any. The side table tender_cpv holds them one a row. */
  cpv: string | null;
}

/** A tender's key: a string id as it is, a number id as its JSON text; undefined when it has none (not stored). */
export function tenderId(tender: Record<string, unknown>): string | undefined {
  const id = tender.id;
  if (typeof id === 'string') return id === '' ? undefined : id;
  if (id instanceof RawNumber) return id.text;
  return typeof id === 'number' && Number.isFinite(id) ? JSON.stringify(id) : undefined;
}

/** `cpvPaths`: where the tender's CPV codes are (the cpv-paths setting; model/cpv.ts tenderCpvCodes). */
export function tenderColumns(id: string, tender: Record<string, unknown>, cpvPaths: readonly string[]): TenderColumns {
  const buyer = tender.buyer;
  const value = tender.estimatedValue;
  return {
    id,
    published: timestamp(tender.publicationDate),
    deadline: timestamp(tender.deadline),
    status: text(tender.status),
    buyerId: text(isObject(buyer) ? buyer.id : undefined),
    buyerName: text(isObject(buyer) ? buyer.name : undefined),
    buyerCountry: text(isObject(buyer) ? buyer.country : undefined),
    title: text(tender.title),
    valueEur: number(isObject(value) ? value.amountEur : undefined),
    cpv: cpvColumn(tender, cpvPaths),
  };
}

const SORT_COLUMN = { publicationDate: 'published', deadline: 'deadline', estimatedValue: 'valueEur' } as const;

/** Where a stored tender stands in the order of `sortBy`: what SelectOptions.from continues after; undefined without the field. */
export function sortPosition(tender: Record<string, unknown>, sortBy: keyof typeof SORT_COLUMN): SortPosition | undefined {
  const id = tenderId(tender);
  // No CPV path: the sort key is all that is read.
  const key = id === undefined ? null : tenderColumns(id, tender, [])[SORT_COLUMN[sortBy]];
  return key === null || id === undefined ? undefined : { key, id };
}

/** The typed column a dot path is held in whole when the document's value is a string (count --by reads it, not the JSON). */
const STRING_COLUMNS: Record<string, keyof TenderColumns> = {
  status: 'status',
  title: 'title',
  'buyer.id': 'buyerId',
  'buyer.name': 'buyerName',
  'buyer.country': 'buyerCountry',
};

/** The typed column that holds a string field at `path`, if one does (own keys only: `__proto__` is a field name). */
export function stringColumn(path: string): keyof TenderColumns | undefined {
  return Object.hasOwn(STRING_COLUMNS, path) ? STRING_COLUMNS[path] : undefined;
}


/**
 * A selection bound or a date field as the columns hold it: UTC ISO; NULL when it is no date
 * (readInstant: the years 0001-9999 only, which PostgreSQL's timestamptz holds), in both
 * engines, so that both list, sort and select the same tenders. The document keeps the text
 * as sent.
 */
export function timestamp(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  let iso = timestamps.get(value);
  if (iso === undefined) {
    const instant = readInstant(value);
    iso = instant === undefined ? null : new Date(instant.ms).toISOString();
    if (timestamps.size >= TIMESTAMPS_KEPT) timestamps.clear();
    timestamps.set(value, iso);
  }
  return iso;
}

/** Tenders share their dates (a day's publications, noon deadlines): parsing each text once is a tenth of a sync's time. */
const timestamps = new Map<string, string | null>();
const TIMESTAMPS_KEPT = 4096;

/** A tender's codes as its `cpv` column holds them: a JSON array's text, NULL without any. */
export function cpvColumn(tender: Record<string, unknown>, paths: readonly string[]): string | null {
  const found = tenderCpvCodes(tender, paths);
  return found.length > 0 ? JSON.stringify(found) : null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function number(value: unknown): number | null {
  if (value instanceof RawNumber) return Number.isFinite(Number(value.text)) ? Number(value.text) : null;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * The order of count rows both engines give: most frequent first, then by the
 * value's JSON text in UTF-8 byte order (SQLite's BINARY, PostgreSQL's "C"),
 * absent (null) first. Sorts [json text | null, count] pairs in place.
 */
export function sortCounts(rows: [string | null, number][]): void {
  rows.sort(([va, na], [vb, nb]) => nb - na || (va === vb ? 0 : va === null ? -1 : vb === null ? 1 : Buffer.compare(Buffer.from(va), Buffer.from(vb))));
}

/** A column's name for a document field: `buyerName` → `buyer_name`. */
export function snake(column: string): string {
  return column.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A value as JSON text (every digit kept), or NULL for an absent one. */
export function jsonOrNull(value: unknown): string | null {
  return value === undefined ? null : stringifyJson(value);
}
