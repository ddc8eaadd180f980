import { COUNTRIES, EUR_RATES } from './catalogue.js';
import type { Tender } from './data.js';
import { Random } from './random.js';
import { BadRequest } from '../contract/response.js';
import type { Row, Store } from './store.js';

/**
 * A change of the data between two runs of a client (sandbox only: the service
 * spec has no such operation). Counts are how many tenders to publish, change,
 * close and delete; `seed` (default 1) picks which ones and how.
 */
export interface Mutation {
  insert?: number;
  update?: number;
  close?: number;
  remove?: number;
  seed?: number;
}

/** The ids each part of a mutation touched, in id order. */
export interface MutationResult {
  inserted: string[];
  updated: string[];
  closed: string[];
  removed: string[];
}

const FIELDS = ['insert', 'update', 'close', 'remove', 'seed'] as const;
/** Inserting is a splice per index and tender: a bound keeps one call well under a second. */
export const MAX_INSERT = 100_000;
const DAY = 86_400_000;
const CURRENCY = new Map(COUNTRIES.map((c) => [c.code, c.currency]));

/** The mutation in a request body; throws BadRequest (400) on anything else. */
export function parseMutation(body: unknown): Mutation {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new BadRequest('the request body must be a JSON object');
  const record = body as Record<string, unknown>;
  const unknown = Object.keys(record).find((key) => !(FIELDS as readonly string[]).includes(key));
  if (unknown !== undefined) throw new BadRequest(`unknown field: ${unknown} (allowed: ${FIELDS.join(', ')})`);
  const mutation: Mutation = {};
  for (const field of FIELDS) {
    const value = record[field];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new BadRequest(`${field} must be a whole number, 0 or more`);
    mutation[field] = value;
  }
  if ((mutation.insert ?? 0) > MAX_INSERT) throw new BadRequest(`insert takes at most ${MAX_INSERT} at a time`);
  return mutation;
}

/** A 32-bit seed from several numbers (FNV-1a over their 32-bit halves). */
function mix(...values: number[]): number {
  let h = 0x811c9dc5;
  for (const v of values) {
    for (const part of [v >>> 0, Math.floor(v / 2 ** 32) >>> 0]) {
      h = Math.imul(h ^ part, 0x01000193) >>> 0;
    }
  }
  return h;
}

/** `n` items of `items`, one from each of `n` equal stretches of it: spread across the data. */
function spread<T>(items: T[], n: number, random: Random): T[] {
  const k = Math.min(n, items.length);
  const picked: T[] = [];
  for (let i = 0; i < k; i++) {
    const lo = Math.floor((i * items.length) / k);
    const hi = Math.floor(((i + 1) * items.length) / k);
    picked.push(items[lo + Math.floor(random.next() * (hi - lo))]!);
  }
  return picked;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Changes one to three of deadline, estimated value and title; which ones varies by tender. */
function amend(t: Tender, random: Random): Tender {
  const which = random.int(1, 7);
  if (which & 1) {
    // Extended by 1–30 days; a tender without a deadline gets one about a month after publication.
    const from = t.deadline ? Date.parse(t.deadline.slice(0, 10)) : Date.parse(t.publicationDate) + 30 * DAY;
    t.deadline = `${isoDay(from + random.int(1, 30) * DAY)}T12:00:00Z`;
  }
  if (which & 2) {
    const currency = t.estimatedValue?.currency ?? CURRENCY.get(t.buyer.country) ?? 'EUR';
    let amount: number;
    if (t.estimatedValue) {
      const old = t.estimatedValue.amount;
      const delta = Math.max(1, Math.round(old * (0.05 + random.next() * 0.25)));
      amount = random.chance(0.3) ? Math.max(1, old - delta) : old + delta;
      if (amount === old) amount = old + delta;
    } else {
      amount = Math.round(10 ** (3.7 + random.next() * 3.8));
    }
    t.estimatedValue = { amount, currency, amountEur: Math.round(amount * EUR_RATES[currency]! * 100) / 100 };
  }
  if (which & 4) {
    const amended = / \(amended (\d+)\)$/.exec(t.title);
    const base = amended ? t.title.slice(0, amended.index) : t.title;
    t.title = `${base} (amended ${amended ? Number(amended[1]) + 1 : 1})`;
  }
  return t;
}

/**
 * Applies a mutation: picks the tenders to update (open ones), close (other
 * open ones) and remove (any others) spread across the data, changes them,
 * then publishes the new ones. The same seed on the same data (the same
 * sandbox history) gives the same result.
 */
export function mutate(store: Store, m: Mutation): MutationResult {
  const random = new Random(mix(m.seed ?? 1, store.size, store.generated, store.version));
  const all = [...store.rows()];
  const open = all.filter((r) => r.tender.status === 'open');
  const toUpdate = spread(open, m.update ?? 0, random);
  const taken = new Set<Row>(toUpdate);
  const toClose = spread(
    open.filter((r) => !taken.has(r)),
    m.close ?? 0,
    random,
  );
  for (const r of toClose) taken.add(r);
  const toRemove = spread(
    all.filter((r) => !taken.has(r)),
    m.remove ?? 0,
    random,
  );

  const id = (r: Row) => r.tender.id;
  const result: MutationResult = { inserted: [], updated: toUpdate.map(id), closed: toClose.map(id), removed: toRemove.map(id) };
  for (const tenderId of result.updated) store.update(tenderId, (t) => amend(t, random));
  for (const tenderId of result.closed) {
    store.update(tenderId, (t) => {
      t.status = 'closed';
      return t;
    });
  }
  for (const tenderId of result.removed) store.remove(tenderId);
  result.inserted = store.publish(m.insert ?? 0, random);
  return result;
}
