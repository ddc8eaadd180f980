import { errorResponse, type ApiResponse } from '../contract/response.js';
import { stringifyExact } from '../model/exact-json.js';
import type { ChangeRecord, Store } from '../store/store.js';
import { scopedSyncs, servesTender } from '../store/sync-scope.js';

/** A change as the API gives it: `old`/`new` left out where the field is absent (as `tenders changes` writes them). */
export function changeEntry(change: ChangeRecord): Record<string, unknown> {
  const { kind, field, old, new: now, at, sync } = change;
  return { kind, field, old, new: now, at, sync };
}

/**
 * `GET /api/v1/tenders/{id}`: the stored document (every digit kept), when the
 * copy first stored it, when it went, and its history oldest first. 404 for an
 * id the copy does not hold, or holds for no sync of `scope` (`--sync`).
 */
export async function tenderStory(store: Store, id: string, scope?: readonly string[]): Promise<ApiResponse> {
  const stored = await store.getTender(id);
  if (stored === undefined || !servesTender(scope, stored)) {
    return errorResponse(404, `tender not found: ${id}`);
  }
  const { changes } = await store.searchChanges({ id, syncs: scopedSyncs(scope) });
  const history = changes.reverse().map(changeEntry);
  return { status: 200, body: stringifyExact({ tender: stored.tender, firstSeen: stored.firstSeen, goneAt: stored.goneAt, history }) };
}
