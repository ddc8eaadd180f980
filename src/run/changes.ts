import { neutralizeForTerminal } from '../output/terminal/sanitize.js';
import { changesFeed, changesFeedId } from '../serve/changes-feed.js';
import type { StoreTarget } from '../store/location.js';
import type { ChangeFilter, ChangeRecord, Store } from '../store/store.js';
import { withLocalCopy } from './local-copy.js';
import { NO_CLIENT } from './local-source.js';
import type { ConnectionPlan, OutputPlan, RunDeps } from './plan.js';
import { runSession } from './session.js';
import { sayAfterOutput } from '../output/formatter.js';

/** `tenders changes`: which history, from which copy, into which output. */
export interface ChangesPlan {
  db: StoreTarget;
  filter: ChangeFilter;
  connection: ConnectionPlan;
  output: OutputPlan;
}

/**
 * Streams the copy's history, oldest first, one record per change, through
 * the run session (formats, -o atomic and locked). Memory does not grow with
 * the history: the store gives it in batches, each written as it comes.
 */
export function runChanges(plan: ChangesPlan, deps: Omit<RunDeps, 'client'>): Promise<void> {
  const session = { connection: plan.connection, query: { path: '', body: { ...plan.filter }, noun: 'changes' }, parallel: 1, output: plan.output };
  return runSession(session, { ...deps, client: NO_CLIENT }, (run) =>
    withLocalCopy(plan.db, plan.filter.sync, run.signal, async (store) => {
      const out = await run.openOutput();
      if (plan.output.format === 'atom') {
        // On a terminal the feed is cleaned as a formatter's text is (createFormatter): a bidi override of the service's is spelled out.
        const clean = run.formatOptions().terminal ? (text: string) => neutralizeForTerminal(text, false) : (text: string) => text;
        for await (const text of changesFeed(store, store.changes(plan.filter), await feedOf(store, plan.filter.sync))) await out.write(clean(text));
        await run.commit();
        return;
      }
      const formatter = await run.createFormatter();
      let rows = 0;
      for await (const batch of store.changes(plan.filter)) {
        await out.write(formatter.page(batch.map(changeRecord)));
        rows += batch.length;
        if (deps.signal.aborted) throw deps.signal.reason;
      }
      await out.write(formatter.end());
      await run.commit();
      // A table that left a column out at this width says so.
      sayAfterOutput(formatter, run.say);
      if (rows === 0) run.say.hint('No changes recorded for this selection.');
      run.summary([`${rows} changes`]);
    }),
  );
}

/** A change as the formats write it: `field` null unless changed; `old`/`new` left out where the field is absent. */
function changeRecord(change: ChangeRecord): Record<string, unknown> {
  const record: Record<string, unknown> = { at: change.at, sync: change.sync, id: change.id, kind: change.kind, field: change.field };
  if (change.old !== undefined) record.old = change.old;
  if (change.new !== undefined) record.new = change.new;
  return record;
}

/**
 * The feed of the changes (-f atom): a sync's as `tenders serve` publishes it at
 * /syncs/NAME/changes.atom (its id, title and entries' ids), updated at its last
 * change; every sync's, `urn:tenders:changes`, at the latest of theirs.
 */
async function feedOf(store: Store, sync: string | undefined) {
  const syncs = (await store.listSyncs()).filter((s) => sync === undefined || s.name === sync);
  const updated = new Date(syncs.map((s) => s.lastChange).reduce((a, b) => (a > b ? a : b), new Date(0).toISOString()));
  return sync === undefined ? { id: 'urn:tenders:changes', title: 'Changes of the local copy', updated } : { id: changesFeedId(sync), title: `Changes of ${sync}`, updated };
}
