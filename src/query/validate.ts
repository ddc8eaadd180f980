import { UsageError } from '../errors.js';
import { parseJson } from '../model/json-parse.js';
import { PAGE_SIZE_MAX } from './endpoints.js';
import { SORT_FIELDS, type SortField } from '../model/local-selection.js';
import { SAVED_NAME } from '../model/saved-name.js';
import { RATE_MAX, rateOf } from '../model/settings.js';

/** Flag values checked before any request is sent; each failure is a UsageError (exit 2). */

export const SORT_ORDERS = ['asc', 'desc'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

/** Repeatable, comma-separated values: ["FRA,ITA", "DEU"] → ["FRA", "ITA", "DEU"]. */
export function splitList(flag: string, values: readonly string[]): string[] {
  const items = values.flatMap((value) => value.split(',')).map((item) => item.trim());
  if (items.some((item) => item === '')) throw new UsageError(`${flag} takes non-empty values separated by commas`);
  return items;
}

export function parseCountries(values: readonly string[]): string[] {
  return splitList('--country', values).map((code) => {
    if (!/^[A-Za-z]{3}$/.test(code)) {
      throw new UsageError(`--country takes three-letter country codes such as DEU or FRA, not '${code}'`);
    }
    return code.toUpperCase();
  });
}

/** Statuses the spec names; others are sent as given (lower-cased: the service's values are). */
export const KNOWN_STATUSES = ['open'] as const;

export function parseStatuses(values: readonly string[]): string[] {
  return splitList('--status', values).map((status) => status.toLowerCase());
}

export function parseSort(value: string): SortField {
  const field = SORT_FIELDS.find((f) => f.toLowerCase() === value.trim().toLowerCase());
  if (!field) throw new UsageError(`--sort takes one of ${SORT_FIELDS.join(', ')}, not '${value}'`);
  return field;
}

export function parseOrder(value: string): SortOrder {
  const order = SORT_ORDERS.find((o) => o === value.trim().toLowerCase());
  if (!order) throw new UsageError(`--order takes asc or desc, not '${value}'`);
  return order;
}

/** A whole number within [min, max]; digits only, so "1e2" and "2.5" are refused. */
export function parseInteger(flag: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
    throw new UsageError(`${flag} takes a whole number ${range}, not '${value}'`);
  }
  return n;
}

/** A time span of a flag: `500ms`, `5s`, `2m`, or plain milliseconds (`500`); above 0, at most a day. */
export function parseDurationMs(flag: string, value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(value);
  const ms = m ? Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[(m[2] ?? 'ms') as 'ms' | 's' | 'm'] : NaN;
  if (!(ms >= 1 && ms <= 86_400_000)) throw new UsageError(`${flag} takes a time such as 500ms, 5s or 2m (at least 1ms, at most a day), not '${value}'`);
  return Math.round(ms);
}

/** --rate: requests per second, a positive decimal such as 2 or 0.1. */
export function parseRate(value: string): number {
  const n = rateOf(value);
  if (!(n > 0 && n <= RATE_MAX)) {
    throw new UsageError(`--rate takes requests per second, a number above 0 and at most ${RATE_MAX} such as 2 or 0.5, not '${value}'`);
  }
  return n;
}

export function parseLimit(value: string): number {
  return parseInteger('--limit', value, 1, PAGE_SIZE_MAX);
}

/** --filter KEY=VALUE: VALUE is JSON when it parses as JSON (numbers keep every digit), else a string. */
export function parseFilters(values: readonly string[], reserved: Readonly<Record<string, string>>): Record<string, unknown> {
  // No prototype: a KEY such as __proto__ or constructor is just a field name.
  const filters: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const pair of values) {
    const eq = pair.indexOf('=');
    const key = eq > 0 ? pair.slice(0, eq).trim() : '';
    if (key === '') throw new UsageError(`--filter takes KEY=VALUE, not '${pair}'`);
    if (Object.hasOwn(reserved, key)) throw new UsageError(`--filter ${key}=... is what ${reserved[key]} sets: use that flag`);
    filters[key] = parseJsonOrString(pair.slice(eq + 1));
  }
  return filters;
}

function parseJsonOrString(text: string): unknown {
  try {
    return parseJson(text);
  } catch {
    return text;
  }
}

export function parseSavedName(kind: 'watch' | 'sync', name: string): string {
  if (!SAVED_NAME.test(name)) {
    throw new UsageError(`a ${kind} name is up to 100 letters, digits, '-', '_' and '.', not starting with '.': '${name}' is not one`);
  }
  return name;
}

export function parseColumns(value: string): string[] {
  const columns = splitList('--columns', [value]);
  for (const column of columns) {
    if (column.split('.').some((part) => part === '')) {
      throw new UsageError(`--columns takes field names or dot paths such as buyer.name, not '${column}'`);
    }
  }
  return columns;
}

/** The base URL of the service and, when it had to be mended, what was done (for --verbose). */
/** The API prefix at the end of a base URL, alone or with one of the search endpoints after it. */
const API_SUFFIX = /(\/api\/v1(?:\/tenders\/search|\/organisations\/search|\/organisations\/[^/]+\/tenders\/search)?)\/?$/;

export function parseBaseUrl(value: string | undefined): { url: URL; note?: string } {
  if (value === undefined || value.trim() === '') {
    throw new UsageError(
      'no service URL: pass --base-url URL or set TENDERS_BASE_URL (e.g. export TENDERS_BASE_URL=https://tenders.example.org)',
    );
  }
  const text = value.trim();
  const withScheme = text.includes('://') ? undefined : schemeFor(text);
  if (withScheme) throw new UsageError(`the base URL '${value}' has no scheme: did you mean ${withScheme}?`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`the base URL '${value}' is not a URL; it should look like https://tenders.example.org`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`the base URL must be http: or https:, not '${url.protocol}'`);
  }
  if (url.search || url.hash) throw new UsageError(`the base URL must not have a query or fragment: '${value}'`);
  // The CLI adds the API's own prefix and paths: a base URL that ends in them (the spec's
  // endpoint, copied whole) would ask for /api/v1/api/v1/... (a 404).
  const api = API_SUFFIX.exec(url.pathname);
  if (api) {
    url.pathname = url.pathname.slice(0, api.index) || '/';
    return { url, note: `the base URL ends in ${api[1]}, which the CLI adds to every path itself: using ${url.href.replace(/\/$/, '')}` };
  }
  return { url };
}

/** `localhost:8787` → `http://localhost:8787`: plain http for this machine or a port other than 443, else https. */
function schemeFor(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(`http://${text}`);
  } catch {
    return undefined;
  }
  if (!url.hostname.includes('.') && url.hostname !== 'localhost') return undefined; // not a host name: say it is not a URL
  const local = url.hostname === 'localhost' || url.hostname.startsWith('127.') || url.hostname === '[::1]';
  return `${local || (url.port !== '' && url.port !== '443') ? 'http' : 'https'}://${text.replace(/\/$/, '')}`;
}
