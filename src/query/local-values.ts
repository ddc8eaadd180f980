import { UsageError } from '../errors.js';
import { cpvPrefix } from '../model/cpv.js';
import { splitList } from './validate.js';

/**
 * The values of the local-only filters (--since, --until, --deadline-after,
 * --deadline-before, --min-value, --max-value, WORDS, --cpv, --buyer,
 * --buyer-name), checked before the
 * store is opened; each failure is a UsageError (exit 2) that states the rule.
 */

/** Which end of a range a date gives: a day named alone starts (lower bound) or ends (upper bound) there. */
export type Bound = 'start' | 'end';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const UNIT_MS: Record<string, number> = { m: MINUTE_MS, h: 60 * MINUTE_MS, d: DAY_MS, w: 7 * DAY_MS };

const DATE_RULE =
  'a date (2026-03-01), a timestamp with its zone (2026-03-01T09:30:00Z, 2026-03-01T09:30+01:00), ' +
  'now, today, or a time back from now (30m, 12h, 7d, 2w; +7d is ahead)';

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;
const DURATION = /^(\+?)(\d+)([a-zA-Z]+)$/;

/**
 * A date flag's value as an ISO timestamp in UTC (2026-03-01T00:00:00.000Z).
 * A day named alone is UTC and covers the whole day: its start for a lower
 * bound, its last millisecond for an upper one (--until 2026-03-31 takes in
 * the 31st). A timestamp must say its zone. A duration counts back from `now`.
 */
export function parseInstant(flag: string, text: string, now: Date, bound: Bound): string {
  const value = text.trim();
  const refuse = (why = '') => new UsageError(`${flag} takes ${DATE_RULE}${why}, not '${text}'`);
  let ms: number;
  if (value === 'now') ms = now.getTime();
  else if (value === 'today') ms = dayBound(Math.floor(now.getTime() / DAY_MS) * DAY_MS, bound);
  else if (DAY.test(value)) {
    const [, y, mo, d] = DAY.exec(value)!;
    ms = dayBound(utc(refuse, y!, mo!, d!), bound);
  } else if (TIMESTAMP.test(value)) {
    const [, y, mo, d, h, mi, s = '0', fraction = '', zone] = TIMESTAMP.exec(value)!;
    if (zone === undefined) {
      throw new UsageError(`${flag} ${text} has no time zone: add Z for UTC or an offset such as +01:00 (or give a date alone, read as UTC)`);
    }
    if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) throw refuse();
    const day = utc(refuse, y!, mo!, d!);
    ms = day + (Number(h) * 60 + Number(mi)) * MINUTE_MS + Number(s) * 1000 + Number(fraction.padEnd(3, '0').slice(0, 3)) - offsetMs(zone, refuse);
  } else if (DURATION.test(value)) {
    const [, ahead, count, unit] = DURATION.exec(value)!;
    const unitMs = UNIT_MS[unit!];
    if (unitMs === undefined) {
      throw new UsageError(`${flag} ${text}: a duration's unit is m (minutes), h (hours), d (days) or w (weeks); for months give a date`);
    }
    ms = now.getTime() + (ahead ? 1 : -1) * Number(count) * unitMs;
  } else throw refuse();
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  // NaN (a duration past what Date holds) fails both tests.
  if (!(year >= 1 && year <= 9999)) throw refuse(' within the years 0001 to 9999');
  return date.toISOString();
}

/** Midnight UTC of a calendar day; a day the calendar lacks (2026-02-30) is refused. */
function utc(refuse: () => UsageError, y: string, mo: string, d: string): number {
  const date = new Date(0); // not Date.UTC, which reads years 0-99 as 1900-1999
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  if (date.getUTCFullYear() !== Number(y) || date.getUTCMonth() !== Number(mo) - 1 || date.getUTCDate() !== Number(d)) throw refuse();
  return date.getTime();
}

const dayBound = (midnight: number, bound: Bound) => (bound === 'start' ? midnight : midnight + DAY_MS - 1);

/** Z, +01, +0100, +01:00 → milliseconds east of UTC. */
function offsetMs(zone: string, refuse: () => UsageError): number {
  if (zone === 'Z' || zone === 'z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || '0');
  if (hours > 23 || minutes > 59) throw refuse();
  return (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes) * MINUTE_MS;
}

const EUR = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * An amount in EUR: a non-negative decimal with a point (1500.50), or in
 * exponent form (1e6, 2.5e5) for the large round sums procurement deals in.
 * Thousands separators and decimal commas are refused, not guessed.
 */
export function parseEur(flag: string, text: string): number {
  const value = text.trim();
  const n = EUR.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(n)) {
    const hint = value.includes(',') ? ' (no thousands separators or decimal commas: 1500000 or 1.5e6, 1500.50)' : '';
    throw new UsageError(`${flag} takes an amount in EUR, a number 0 or above such as 250000, 1500.50 or 1e6${hint}, not '${text}'`);
  }
  return n;
}

/** WORDS as one full-text query; none (or only spaces) is no query. Its syntax is the store's to check. */
export function parseWords(words: readonly string[]): string | undefined {
  const query = words.join(' ').trim();
  return query === '' ? undefined : query;
}

/**
 * --cpv: each code as the prefix it selects (45, 4523, 45233140-2 → 45, 4523,
 * 4523314), each once, in the order given; what is not a CPV code is refused
 * with the rule.
 */
export function parseCpvCodes(values: readonly string[]): string[] {
  const prefixes = splitList('--cpv', values).map((code) => {
    const prefix = cpvPrefix(code);
    if (prefix === undefined) {
      throw new UsageError(
        `--cpv takes CPV codes of 2 to 8 digits, a check digit allowed (45, 4523, 45233140, 45233140-2): a code selects itself and every code below it, not '${code}'`,
      );
    }
    return prefix;
  });
  return [...new Set(prefixes)];
}

/** --buyer: buyer ids as the service writes them (`buyer.id`), each once. */
export function parseBuyerIds(values: readonly string[]): string[] {
  return [...new Set(splitList('--buyer', values))];
}

/** The levels of the CPV hierarchy `count --by cpv --cpv-level` groups by: digits kept of each code. */
export const CPV_LEVELS = { 2: 'divisions', 3: 'groups', 4: 'classes', 5: 'categories', 8: 'each code' } as const;
export type CpvLevel = 2 | 3 | 4 | 5 | 8;

/** --cpv-level: 2, 3, 4, 5 or 8. */
export function parseCpvLevel(text: string): CpvLevel {
  const level = Number(text.trim());
  if (Object.hasOwn(CPV_LEVELS, level) && /^\d$/.test(text.trim())) return level as CpvLevel;
  const rule = Object.entries(CPV_LEVELS).map(([n, name]) => `${n} (${name})`).join(', ');
  throw new UsageError(`--cpv-level takes ${rule}, not '${text}'`);
}
