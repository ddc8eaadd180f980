import type { FirstRequest } from '../model/request.js';
import { stringifyExact } from '../model/exact-json.js';

/**
 * What --dry-run prints for the requests a run would send first: for each,
 * `POST URL` on a line, then the JSON body as sent, pretty-printed; a blank
 * line between requests (a partitioned walk or count --by starts several).
 */
export function describeRequests(requests: readonly FirstRequest[], url: (path: string) => string): string {
  return requests.map((request) => `POST ${url(request.path)}\n${stringifyExact(request.body, '  ')}\n`).join('\n');
}
