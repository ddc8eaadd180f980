import { STATUSES } from './catalogue.js';

export const SORT_DEFAULTS = { publicationDate: 'desc', deadline: 'asc', estimatedValue: 'desc' } as const;
export type SortBy = keyof typeof SORT_DEFAULTS;
export type SortOrder = 'asc' | 'desc';

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

/** A request the service refuses with 400 and this message. */
export class BadRequest extends Error {}

const TENDER_FIELDS = ['limit', 'cursor', 'sortBy', 'sortOrder', 'buyerCountries', 'statuses', 'query', 'minValue', 'maxValue', 'cpv'];
const ORG_FIELDS = ['limit', 'cursor', 'countries', 'query'];

function asObject(body: unknown, allowed: string[]): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new BadRequest('the request body must be a JSON object');
  const record = body as Record<string, unknown>;
  const unknown = Object.keys(record).find((key) => !allowed.includes(key));
  if (unknown !== undefined) throw new BadRequest(`unknown field: ${unknown}`);
  return record;
}

function paging(record: Record<string, unknown>): { limit: number; cursor?: string } {
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

export function parseTenderQuery(body: unknown): TenderQuery {
  const record = asObject(body, TENDER_FIELDS);
  const sortBy = record.sortBy === undefined ? 'publicationDate' : record.sortBy;
  if (typeof sortBy !== 'string' || !(sortBy in SORT_DEFAULTS)) {
    throw new BadRequest('sortBy must be one of publicationDate, deadline, estimatedValue');
  }
  const sortOrder = record.sortOrder === undefined ? SORT_DEFAULTS[sortBy as SortBy] : record.sortOrder;
  if (sortOrder !== 'asc' && sortOrder !== 'desc') throw new BadRequest('sortOrder must be asc or desc');
  const statuses = record.statuses;
  if (statuses !== undefined) {
    if (!Array.isArray(statuses)) throw new BadRequest('statuses must be an array');
    const bad = statuses.find((s) => !(STATUSES as readonly unknown[]).includes(s));
    if (bad !== undefined) throw new BadRequest(`statuses: unknown value ${JSON.stringify(bad)} (allowed: ${STATUSES.join(', ')})`);
  }
  return {
    ...paging(record),
    sortBy: sortBy as SortBy,
    sortOrder,
    filters: {
      buyerCountries: countryCodes(record.buyerCountries, 'buyerCountries'),
      statuses: statuses?.length ? (statuses as string[]) : undefined,
      query: text(record.query, 'query'),
      minValue: number(record.minValue, 'minValue'),
      maxValue: number(record.maxValue, 'maxValue'),
      cpv: text(record.cpv, 'cpv'),
    },
  };
}

export function parseOrgQuery(body: unknown): OrgQuery {
  const record = asObject(body, ORG_FIELDS);
  return { ...paging(record), filters: { countries: countryCodes(record.countries, 'countries'), query: text(record.query, 'query') } };
}
