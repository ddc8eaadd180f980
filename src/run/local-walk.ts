import { DEFAULT_CPV_PATHS } from '../model/cpv.js';
import { formatAge, formatCounted } from '../model/numbers.js';
import { traitsOf } from '../output/format-registry.js';
import type { Store } from '../store/store.js';
import { copyCpvPaths } from './copy-cpv-paths.js';
import { withLocalCopy } from './local-copy.js';
import { localSource, NO_CLIENT, type LocalPlan } from './local-source.js';
import type { RunDeps, WalkPlan } from './plan.js';
import { runSession, type Session } from './session.js';
import { walkInto } from './walk.js';

/**
 * `search --local` and `export --local`: the walk and session of an online
 * run (formats, columns, -o, --receipt, hints), its pages read from the copy.
 * The copy is opened inside the session, so a copy that is missing fails
 * before any output exists.
 */
export function runLocalWalk(plan: WalkPlan, local: LocalPlan, deps: Omit<RunDeps, 'client'>): Promise<void> {
  return runSession(plan, { ...deps, client: NO_CLIENT }, (session) =>
    withLocalCopy(local.db, local.selection.sync, session.signal, async (store) => {
      await sayHowOld(session, store, local, plan);
      // A table names the codes where the copy read them (what --cpv selected by), whatever the setting says now.
      plan.output.cpvPaths = await copyCpvPaths(store, plan.output.cpvPaths ?? DEFAULT_CPV_PATHS, session.say);
      // No "of N": the store's count keeps tenders a sort leaves out (no deadline under --sort deadline).
      let source: ReturnType<typeof localSource> | undefined;
      await walkInto(plan, session, (opts) => (source = localSource(store, local, { maxItems: opts.maxItems, all: plan.all, total: null }, session.say)));
      if (source?.complete && plan.all && plan.max === undefined) await sayLeftOut(session, store, local, source.rows);
    }),
  );
}

/**
 * The service's default order (newest first) lists no tender without a publicationDate that
 * is a date, where count --local counts every tender: a whole listing that left some out says
 * so, in cron too (an export may be meant to hold them all). A chosen --sort counts as it lists.
 */
async function sayLeftOut(session: Session, store: Store, local: LocalPlan, rows: number): Promise<void> {
  if (local.selection.sortBy !== undefined || local.after !== undefined) return;
  const { total } = await store.count(local.selection);
  if (total <= rows) return;
  session.say.warn(
    `${formatCounted(total - rows, 'tenders')} of this selection are not in the output: they have no publicationDate that is a date, ` +
      'and the order is by it (count --local counts them; --sort deadline lists those with a deadline)',
  );
}

/** A table for a person on a terminal says how old the copy is: stderr, so never in the data. */
async function sayHowOld(session: Session, store: Store, local: LocalPlan, plan: WalkPlan): Promise<void> {
  if (!session.io.stderrIsTTY || !traitsOf(plan.output.format).forPeople) return;
  const { lastComplete } = await store.status(local.selection.sync);
  if (lastComplete) session.say.hint(`Local copy${local.selection.sync ? ` of ${local.selection.sync}` : ''}, synced ${formatAge(Date.now() - Date.parse(lastComplete))} ago.`);
}
