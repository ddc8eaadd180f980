/** The paths of the service's three search operations (spec 4). */
export const TENDERS_PATH = '/api/v1/tenders/search';
export const ORGS_PATH = '/api/v1/organisations/search';
const ORG_TENDERS = /^\/api\/v1\/organisations\/([^/]+)\/tenders\/search$/;

export type SearchOperation = 'tenders' | 'organisations' | 'organisationTenders';

/** Which search operation a path names, or undefined (404). */
export function searchOperation(path: string): SearchOperation | undefined {
  if (path === TENDERS_PATH) return 'tenders';
  if (path === ORGS_PATH) return 'organisations';
  return ORG_TENDERS.test(path) ? 'organisationTenders' : undefined;
}

/** The organisation id of an Organisation Tenders path (as sent when it does not decode); undefined for another path. */
export function orgIdOf(path: string): string | undefined {
  const id = ORG_TENDERS.exec(path)?.[1];
  if (id === undefined) return undefined;
  try {
    return decodeURIComponent(id);
  } catch {
    return id;
  }
}
