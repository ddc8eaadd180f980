import type { SyncInfo } from '../store/store.js';
import { servesSync } from '../store/sync-scope.js';
import type { WebDeps } from './web-request.js';

/** The syncs the pages show and offer: the served ones (`--sync`), every sync when unscoped. */
export async function servedSyncs(deps: WebDeps): Promise<SyncInfo[]> {
  return (await deps.store.listSyncs()).filter((sync) => servesSync(deps.syncs, sync.name));
}
