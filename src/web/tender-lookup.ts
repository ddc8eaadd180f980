import type { ChangeRecord } from '../store/store.js';
import { scopedSyncs, servesTender, type SyncScope } from '../store/sync-scope.js';
import type { WebStore } from './web-request.js';

/** One tender as the copy holds it: its document (undefined once gone) and its history, oldest first. */
export interface TenderStory {
  tender: Record<string, unknown> | undefined;
  history: ChangeRecord[];
}

/**
 * One tender's story from the copy: its stored document (undefined once gone)
 * and its history, as `GET /api/v1/tenders/{id}` reads them. Undefined when the
 * copy never held the id, or holds it for no served sync (`scope`, `--sync`).
 */
export async function readTenderStory(store: WebStore, id: string, scope: SyncScope): Promise<TenderStory | undefined> {
  const stored = await store.getTender(id);
  if (stored !== undefined && !servesTender(scope, stored)) return undefined;
  const history = (await store.searchChanges({ id, syncs: scopedSyncs(scope) })).changes.reverse();
  const tender = stored === undefined || stored.goneAt !== null ? undefined : stored.tender;
  return stored === undefined && history.length === 0 ? undefined : { tender, history };
}
