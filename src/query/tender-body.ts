import { parseCountries, parseFilters, parseLimit, parseOrder, parseSort, parseStatuses } from './validate.js';

/** Tender filter flags as commander parsed them (all strings). */
export interface TenderFilterFlags {
  country?: string[];
  status?: string[];
  sort?: string;
  order?: string;
  limit?: string;
  filter?: string[];
}

/** The body fields the dedicated flags own; --filter may not set them. */
const RESERVED: Record<string, string> = {
  limit: '--limit',
  cursor: '--cursor',
  sortBy: '--sort',
  sortOrder: '--order',
  buyerCountries: '--country',
  statuses: '--status',
};

/**
 * The Search Tenders request body (section 2.1) for the given flags. Fields
 * whose flag is absent are omitted so the service defaults apply.
 */
export function tenderBody(flags: TenderFilterFlags, defaultLimit?: number): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const limit = flags.limit !== undefined ? parseLimit(flags.limit) : defaultLimit;
  if (limit !== undefined) body.limit = limit;
  if (flags.sort !== undefined) body.sortBy = parseSort(flags.sort);
  if (flags.order !== undefined) body.sortOrder = parseOrder(flags.order);
  if (flags.country?.length) body.buyerCountries = parseCountries(flags.country);
  if (flags.status?.length) body.statuses = parseStatuses(flags.status);
  return { ...body, ...parseFilters(flags.filter ?? [], RESERVED) };
}
