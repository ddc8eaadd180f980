import type { ChangeRecord } from '../store/store.js';
import type { WebStore } from './web-request.js';

/** One tender as the copy holds it: its document (undefined once gone) and its history, oldest first. */
export interface TenderStory {
  tender: Record<string, unknown> | undefined;
  history: ChangeRecord[];
}

/**
 * Reads one tender's story through the Store's reads: the history by id, the
 * document by walking the stored tenders to it (the Store has no read by id
 * yet; a `getTender(id)` would make this one query). Undefined when the copy
 * never held the id.
 */
export async function readTenderStory(store: WebStore, id: string): Promise<TenderStory | undefined> {
  const history: ChangeRecord[] = [];
  for await (const batch of store.changes({ id })) history.push(...batch);
  let tender: Record<string, unknown> | undefined;
  outer: for await (const batch of store.select({})) {
    for (const row of batch) {
      if (String(row.id) === id) {
        tender = row;
        break outer;
      }
    }
  }
  return tender === undefined && history.length === 0 ? undefined : { tender, history };
}
