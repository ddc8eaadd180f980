import { SORT_DEFAULT_ORDER, type SortField } from '../model/local-selection.js';
import { BadRequest } from './response.js';

/**
 * The request rules of the service's three search operations (service-spec
 * 2.1, 3.2, 8): the fields, their types, limit 1..100 (default 25), sortBy and
 * the default sortOrder of each. One implementation for every data source
 * (the sandbox's generated tenders, `tenders serve`'s copy): what a source
 * adds is named in TenderRules.
 */

export type SortBy = SortField;
export type SortOrder = 'asc' | 'desc';

/** The filters of Search Tenders (spec 2.1), with the sandbox's own extras (query, minValue, maxValue, cpv). */
export interface TenderFilters {
  buyerCountries?: string[];
  statuses?: string[];
  query?: string;
  minValue?: number;
  maxValue?: number;
  cpv?: string;
}

export interface TenderQuery {
  limit: number;
  cursor?: string;
  sortBy: SortBy;
  /** Effective order: the default of sortBy when the request omits it (spec 3.2). */
  sortOrder: SortOrder;
  filters: TenderFilters;
  /** The request's fields of TenderRules.extraFields, as sent (absent ones left out). */
  extra: Record<string, unknown>;
}

export interface OrgFilters {
  countries?: string[];
  query?: string;
}

export interface OrgQuery {
  limit: number;
  cursor?: string;
  filters: OrgFilters;
}

/** What a data source adds to the rules. */
export interface TenderRules {
  /** The statuses it knows: another one is a 400 naming them. Default: any string. */
  statuses?: readonly string[];
  /** Fields it takes beyond the service's (a plain client never sends them): checked by the source. */
  extraFields?: readonly string[];
}

const TENDER_FIELDS = ['limit', 'cursor', 'sortBy', 'sortOrder', 'buyerCountries', 'statuses', 'query', 'minValue', 'maxValue', 'cpv'];
const ORG_FIELDS = ['limit', 'cursor', 'countries', 'query'];

/** The body as an object of the `allowed` fields only (400 otherwise). */
export function asObject(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new BadRequest('the request body must be a JSON object');
  const record = body as Record<string, unknown>;
  const unknown = Object.keys(record).find((key) => !allowed.includes(key));
  if (unknown !== undefined) throw new BadRequest(`unknown field: ${unknown}`);
  return record;
}

/** `limit` (1..100, default 25) and `cursor` of a request, by the rules every paged operation shares. */
export function paging(record: Record<string, unknown>): { limit: number; cursor?: string } {
  const limit = record.limit === undefined ? 25 : record.limit;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new BadRequest('limit must be an integer between 1 and 100');
  }
  const cursor = record.cursor;
  if (cursor !== undefined && (typeof cursor !== 'string' || cursor === '')) throw new BadRequest('invalid cursor');
  return { limit, cursor: cursor as string | undefined };
}

function countryCodes(value: unknown, field: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((c) => typeof c === 'string' && /^[A-Z]{3}$/.test(c))) {
    throw new BadRequest(`${field} must be an array of three-letter country codes`);
  }
  return value.length ? (value as string[]) : undefined;
}

function text(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new BadRequest(`${field} must be a string`);
  return value;
}

function number(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new BadRequest(`${field} must be a number`);
  return value;
}

function statusList(value: unknown, known: readonly string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new BadRequest('statuses must be an array');
  const bad = value.find((s) => (known ? !known.includes(s as string) : typeof s !== 'string'));
  if (bad !== undefined) {
    throw new BadRequest(known ? `statuses: unknown value ${JSON.stringify(bad)} (allowed: ${known.join(', ')})` : 'statuses must be an array of strings');
  }
  return value.length ? (value as string[]) : undefined;
}

export function parseTenderQuery(body: unknown, rules: TenderRules = {}): TenderQuery {
  const extraFields = rules.extraFields ?? [];
  const record = asObject(body, [...TENDER_FIELDS, ...extraFields]);
  const sortBy = record.sortBy === undefined ? 'publicationDate' : record.sortBy;
  if (typeof sortBy !== 'string' || !Object.hasOwn(SORT_DEFAULT_ORDER, sortBy)) {
    throw new BadRequest('sortBy must be one of publicationDate, deadline, estimatedValue');
  }
  const sortOrder = record.sortOrder === undefined ? SORT_DEFAULT_ORDER[sortBy as SortBy] : record.sortOrder;
  if (sortOrder !== 'asc' && sortOrder !== 'desc') throw new BadRequest('sortOrder must be asc or desc');
  const statuses = statusList(record.statuses, rules.statuses);
  return {
    ...paging(record),
    sortBy: sortBy as SortBy,
    sortOrder,
    filters: {
      buyerCountries: countryCodes(record.buyerCountries, 'buyerCountries'),
      statuses,
      query: text(record.query, 'query'),
      minValue: number(record.minValue, 'minValue'),
      maxValue: number(record.maxValue, 'maxValue'),
      cpv: text(record.cpv, 'cpv'),
    },
    extra: Object.fromEntries(extraFields.filter((field) => record[field] !== undefined).map((field) => [field, record[field]])),
  };
}

export function parseOrgQuery(body: unknown): OrgQuery {
  const record = asObject(body, ORG_FIELDS);
  return { ...paging(record), filters: { countries: countryCodes(record.countries, 'countries'), query: text(record.query, 'query') } };
}
