import { UsageError } from '../errors.js';
import { givenValue, LOCAL_ONLY_FILTERS, ONLINE_FILTERS, TENDER_FILTERS, tenderFilter } from './tender-filters.js';

/** Tender filter flags as commander parsed them (all strings): the online ones. */
export interface TenderFilterFlags {
  country?: string[];
  status?: string[];
  sort?: string;
  order?: string;
  limit?: string;
  filter?: string[];
}

/** The flags only a local query (`--local`) takes; `words` is the positional WORDS. */
export interface LocalFilterFlags {
  words?: string[];
  since?: string;
  until?: string;
  deadlineAfter?: string;
  deadlineBefore?: string;
  minValue?: string;
  maxValue?: string;
  cpv?: string[];
  buyer?: string[];
  buyerName?: string;
  sync?: string;
}

/** The request fields the spec names (2.1), in its order: bodies are written in it, as --dry-run shows. */
const SPEC_FIELDS = ['limit', 'cursor', 'sortBy', 'sortOrder', 'buyerCountries', 'statuses'];

/**
 * The Search Tenders request body (section 2.1) for the given flags, from the
 * filter table. Fields whose flag is absent are omitted so the service
 * defaults apply; `defaultLimit` is the page size when -n is not given.
 */
export function tenderBody(flags: TenderFilterFlags & LocalFilterFlags, defaultLimit?: number): Record<string, unknown> {
  refuseLocalOnly(flags);
  const named: Record<string, unknown> = {};
  let extra: object = {};
  for (const row of ONLINE_FILTERS) {
    const raw = givenValue(flags, row);
    if (raw === undefined) continue;
    if (row.bodyFields) extra = row.parse(raw) as object;
    else if (row.body) named[row.body] = row.parse(raw);
  }
  const limitField = tenderFilter('limit').body!;
  if (named[limitField] === undefined && defaultLimit !== undefined) named[limitField] = defaultLimit;
  const body: Record<string, unknown> = {};
  for (const field of [...SPEC_FIELDS, ...Object.keys(named)]) if (named[field] !== undefined) body[field] = named[field];
  return { ...body, ...extra };
}

/** The body a saved query (a watch, a sync) keeps: the filters and sort, without paging. */
export function savedQueryBody(flags: TenderFilterFlags & LocalFilterFlags): Record<string, unknown> {
  const body = tenderBody(flags);
  for (const row of TENDER_FILTERS) if (row.paging && row.body) delete body[row.body];
  return body;
}

/** A local-only filter on an online command: a usage error that says to add --local. */
function refuseLocalOnly(flags: object): void {
  for (const row of LOCAL_ONLY_FILTERS) {
    const raw = givenValue(flags, row);
    if (raw === undefined) continue;
    // "WORDS ('hospital cleaning') search ...", "--since filters ...".
    const what = row.positional ? `${row.flag} ('${[raw].flat().join(' ')}') search` : `${row.flag} filters`;
    // The spec shows no such field: sent only when the user names it (docs/decisions.md).
    const send = row.unshownField
      ? `, or send a field the service may accept though its spec does not show it: --filter '${row.unshownField}'`
      : '';
    throw new UsageError(`${what} the local copy that tenders sync keeps: add --local${send}`);
  }
}
