import type { ChangeRecord } from '../store/store.js';
import type { WebStore } from './web-request.js';

/** One tender as the copy holds it: its document (undefined once gone) and its history, oldest first. */
export interface TenderStory {
  tender: Record<string, unknown> | undefined;
  history: ChangeRecord[];
}

/** One tender's story from the copy: its stored document (undefined once gone) and its history. Undefined when the copy never held the id. */
export async function readTenderStory(store: WebStore, id: string): Promise<TenderStory | undefined> {
  const history: ChangeRecord[] = [];
  for await (const batch of store.changes({ id })) history.push(...batch);
  const stored = await store.getTender(id);
  const tender = stored === undefined || stored.goneAt !== null ? undefined : stored.tender;
  return stored === undefined && history.length === 0 ? undefined : { tender, history };
}
