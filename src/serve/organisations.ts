import { type CursorCodec, cursorPosition, orgFingerprint } from '../contract/cursor.js';
import { orgCount, orgMatcher, orgPage, sortOrgs, type Organisation } from '../contract/organisations.js';
import { pageBody } from '../contract/page.js';
import { parseOrgQuery } from '../contract/request.js';
import type { ApiResponse } from '../contract/response.js';
import { isObject } from '../model/exact-json.js';
import type { Store } from '../store/store.js';

/**
 * Search Organisations over the copy: the buyers of the tenders it serves (not
 * gone), with tenderCount counting those tenders, paged by the contract's
 * rules (by name, then id). The buyers are gathered from one count per request;
 * `scope` (`--sync`) keeps the tenders of those syncs only.
 */
export async function searchOrganisations(store: Store, codec: CursorCodec, body: unknown, scope?: readonly string[]): Promise<ApiResponse> {
  const q = parseOrgQuery(body);
  const fingerprint = orgFingerprint(q);
  const after = cursorPosition(codec, q.cursor, fingerprint);
  const orgs = sortOrgs(buyers((await store.count(scope === undefined ? {} : { syncs: [...scope] }, 'buyer')).rows));
  const match = orgMatcher(q.filters);
  const page = orgPage(orgs, match, q.limit, after);
  const next = page.next && codec.encode(page.next, fingerprint);
  return { status: 200, body: pageBody('organisations', page.orgs.map((o) => JSON.stringify(o)), next, after ? null : orgCount(orgs, match)) };
}

/** One organisation per buyer id (a buyer stored under two names counts once, under the first), from counts by buyer. */
function buyers(rows: readonly { value: unknown; count: number }[]): Organisation[] {
  const byId = new Map<string, Organisation>();
  for (const { value, count } of rows) {
    if (!isObject(value) || typeof value.id !== 'string') continue;
    const known = byId.get(value.id);
    if (known) known.tenderCount += count;
    else byId.set(value.id, { id: value.id, name: String(value.name ?? ''), country: String(value.country ?? ''), tenderCount: count });
  }
  return [...byId.values()];
}
