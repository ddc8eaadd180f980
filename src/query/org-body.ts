import { UsageError } from '../errors.js';
import { parseCountries, parseFilters, parseLimit } from './validate.js';

/** `orgs search` flags as commander parsed them. */
export interface OrgFilterFlags {
  query?: string;
  country?: string[];
  limit?: string;
  filter?: string[];
}

const RESERVED: Record<string, string> = { limit: '--limit', cursor: '--cursor', countries: '--country', query: '--query' };

/**
 * The Search Organisations body. Its fields are not in the spec: `countries`
 * and `query` are this CLI's documented assumption; --filter sends others.
 */
export function orgBody(flags: OrgFilterFlags, defaultLimit?: number): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const limit = flags.limit !== undefined ? parseLimit(flags.limit) : defaultLimit;
  if (limit !== undefined) body.limit = limit;
  if (flags.country?.length) body.countries = parseCountries(flags.country);
  if (flags.query !== undefined) {
    if (flags.query.trim() === '') throw new UsageError('--query takes some text to look for in organisation names');
    body.query = flags.query;
  }
  return { ...body, ...parseFilters(flags.filter ?? [], RESERVED) };
}
