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
  return decodedSegment(ORG_TENDERS, path);
}

/** `tenders serve`'s `GET /api/v1/tenders/{id}`: not the service's (it has no read by id). */
const TENDER = /^\/api\/v1\/tenders\/([^/]+)$/;

/** The tender id of a `/api/v1/tenders/{id}` path, percent-decoded (as sent when it does not decode); undefined for another path. */
export function tenderIdOf(path: string): string | undefined {
  return decodedSegment(TENDER, path);
}

/** The path segment `pattern` captures, percent-decoded; as sent when it does not decode. */
function decodedSegment(pattern: RegExp, path: string): string | undefined {
  const segment = pattern.exec(path)?.[1];
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
