import { UsageError } from '../errors.js';
import type { Env } from '../io.js';
import type { ColumnSpec } from '../model/column-spec.js';

/** The largest page the service allows (spec section 8). */
export const PAGE_SIZE_MAX = 100;
/** The page size the service uses when a request names none (spec 2.1). */
export const PAGE_SIZE_DEFAULT = 25;

/** A search operation: where it is, what it returns, what a table shows of it. */
export interface Endpoint {
  /** Path template; `{id}` is an organisation id. */
  path: string;
  /** Environment variable that overrides the path (the organisation operations are not in the spec). */
  envName?: string;
  /** Plural noun for messages: "tenders", "organisations". */
  noun: string;
  /** Table columns when --columns is not given. */
  columns: readonly ColumnSpec[];
  /** Whether the operation takes sortBy (a table keeps the sorted column in view). */
  sortable?: boolean;
  /** The command that lists the fields of its results. */
  fieldsCommand: string;
}

/**
 * What an 80-column terminal shows of a tender: ids, dates, codes and amounts
 * are never cut; the title and the buyer's name give way first; the columns
 * with the lowest priority go first when even that is not enough (country and
 * status are often what the search filtered on).
 */
const TENDER_COLUMNS: ColumnSpec[] = [
  { path: 'id', header: 'id', priority: 8 },
  { path: 'publicationDate', header: 'published', priority: 4 },
  { path: 'deadline', header: 'deadline', priority: 6 },
  { path: 'status', header: 'status', priority: 2 },
  { path: 'buyer.country', header: 'country', priority: 1 },
  { path: 'buyer.name', header: 'buyer', priority: 5, cut: 12 },
  { path: 'estimatedValue.amountEur', header: 'value €', priority: 3, amount: true },
  { path: 'title', header: 'title', priority: 7, cut: 20 },
];

export const TENDERS: Endpoint = {
  path: '/api/v1/tenders/search',
  noun: 'tenders',
  columns: TENDER_COLUMNS,
  sortable: true,
  fieldsCommand: 'tenders fields',
};

// Not in the spec: documented assumptions, each overridable for services that differ.
export const ORGS_SEARCH: Endpoint = {
  path: '/api/v1/organisations/search',
  envName: 'TENDERS_ORGS_SEARCH_PATH',
  noun: 'organisations',
  columns: [
    { path: 'id', header: 'id', priority: 4 },
    { path: 'name', header: 'name', priority: 3, cut: 20 },
    { path: 'country', header: 'country', priority: 2 },
    { path: 'tenderCount', header: 'tenders', priority: 1 },
  ],
  fieldsCommand: 'tenders orgs fields',
};

export const ORG_TENDERS: Endpoint = {
  path: '/api/v1/organisations/{id}/tenders/search',
  envName: 'TENDERS_ORG_TENDERS_PATH',
  noun: 'tenders',
  columns: TENDER_COLUMNS,
  sortable: true,
  fieldsCommand: 'tenders fields',
};

/** The path to POST to: --path, else the endpoint's variable, else its default; `{id}` filled in. */
export function endpointPath(endpoint: Endpoint, env: Env, override?: string, id?: string): string {
  const template = override ?? (endpoint.envName ? env[endpoint.envName] : undefined) ?? endpoint.path;
  if (!template.startsWith('/')) throw new UsageError(`the API path must start with '/', not '${template}'`);
  return id === undefined ? template : fillId(template, id);
}

/** Fills {id} of a path template with an organisation id, safely encoded. */
function fillId(template: string, id: string): string {
  if (id.trim() === '') throw new UsageError('ORG_ID must not be empty');
  if (!template.includes('{id}')) throw new UsageError(`the path template '${template}' has no {id} placeholder`);
  return template.replaceAll('{id}', encodeURIComponent(id));
}

/** The URL a request goes to: the base URL (its path a prefix, trailing slashes dropped) and the operation's path. */
export function serviceUrl(baseUrl: URL, path: string): string {
  return `${baseUrl.origin}${baseUrl.pathname.replace(/\/+$/, '')}${path}`;
}
