import { atomEntry, atomFoot, atomHead, atomJson, changeEntry, type AtomFeed } from '../output/formats/atom-formatter.js';
import type { ChangeRecord, Store } from '../store/store.js';

/**
 * A sync's changes as an Atom feed (`/syncs/{name}/changes.atom`): an entry
 * per tender and run that changed it (new, changed with its fields, gone),
 * written as `tenders watch -f atom` writes its changes (the tender as it
 * stands in the copy, what changed, its JSON), updated at the run's time, its
 * id `urn:tenders:sync:NAME:RUN-TIME:KIND:ID` (the same change keeps it on every
 * poll). Oldest first, as the history is read; the store's batches are
 * written as they come, so memory does not grow with the history.
 */
export async function* changesFeed(store: Store, changes: AsyncGenerator<ChangeRecord[]>, feed: AtomFeed): AsyncGenerator<string> {
  yield atomHead(feed);
  // The codes' names come from where the copy read its codes (the cpv-paths of its last sync).
  const cpvPaths = await store.cpvPaths();
  let group: ChangeRecord[] = [];
  try {
    for await (const batch of changes) {
      let out = '';
      for (const change of batch) {
        if (group.length > 0 && (change.run !== group[0]!.run || change.id !== group[0]!.id)) {
          out += await entryOf(store, group, feed.id, cpvPaths);
          group = [];
        }
        group.push(change);
      }
      yield out;
    }
    if (group.length > 0) yield await entryOf(store, group, feed.id, cpvPaths);
  } finally {
    await changes.return(undefined);
  }
  yield atomFoot();
}

/** The feed's id of a sync's changes; its entries' ids start with it. */
export function changesFeedId(name: string): string {
  return `urn:tenders:sync:${encodeURIComponent(name)}`;
}

/** One tender's change in one run, as an entry: the tender as the copy holds it now (a gone one as last seen). */
async function entryOf(store: Store, group: readonly ChangeRecord[], feedId: string, cpvPaths: readonly string[]): Promise<string> {
  const { id, kind, at } = group[0]!;
  const tender = (await store.getTender(id))?.tender ?? { id };
  const fields = group.flatMap((change) => (change.field === null ? [] : [change.field]));
  const entry = changeEntry({ change: kind, changedFields: fields, tender }, { name: '', since: at }, new Date(at), atomJson(tender), cpvPaths);
  return atomEntry({ ...entry, id: `${feedId}:${at}:${kind}:${encodeURIComponent(id)}` });
}
