import { InterruptedError, NoCopyError, UsageError } from '../errors.js';
import { formatCount, formatCounted, formatDuration } from '../model/numbers.js';
import { withoutCredentials } from '../model/redact.js';
import type { FirstRequest } from '../model/request.js';
import { tenderId } from '../store/columns.js';
import { targetOptions, type StoreTarget } from '../store/location.js';
import { openStore } from '../store/open.js';
import type { RunCounts, RunReceipt, SyncInfo, SyncRun } from '../store/store.js';
import type { QueryPlan, RunDeps, SyncPlan } from './plan.js';
import { runSession, type Session } from './session.js';
import { firstRequests } from './partition.js';
import { openSource, type ResultSource } from './source.js';
import { describeQuery, newestFirst, sameQuery } from './watch/query.js';
import { EVERY_TENDER, type SavedQuery } from '../model/saved-search.js';

/**
 * Runs a sync: opens the copy for writing (an unusable --db is exit 2 before
 * any request), takes the sync's lock, walks its query page by page into the
 * store's run (staged, constant memory), and commits it in one transaction
 * once the walk reached the end. A failed run records only its receipt row; an
 * interrupted one nothing: the copy stays as it was either way.
 */
export async function runSync(plan: SyncPlan, deps: RunDeps): Promise<void> {
  const sessionPlan = { ...plan, query: queryPlan(plan, plan.query ?? EVERY_TENDER) };
  await runSession(sessionPlan, deps, async (session) => {
    const store = await openStore(plan.db.location, { mode: 'write', ...targetOptions(plan.db), connections: plan.parallel + 1, signal: session.signal });
    try {
      const saved = await store.getSync(plan.name);
      const query = chooseQuery(plan, saved);
      if (session.receipt) session.receipt.query = queryPlan(plan, query);
      // The first run of a sync stores every tender, --new-only or not.
      const mode = plan.newOnly && saved ? 'new-only' : 'full';
      const run = await store.beginRun({ sync: { name: plan.name, query, service: service(plan) }, mode, reset: plan.reset, cpvPaths: plan.cpvPaths });
      session.onAbandon(() => run.abort());
      await walkAndCommit(plan, session, run, query, saved);
    } finally {
      await store.close();
    }
  }).catch((err: unknown) => {
    // Ctrl-C: nothing of the run was committed, and the user is told so.
    const reason: unknown = deps.signal.reason;
    if (deps.signal.aborted && reason instanceof InterruptedError) throw new InterruptedError(reason.signal, `the copy at ${withoutCredentials(plan.db.location)} is as it was before this run`);
    throw err;
  });
}

/** The requests a run of the sync starts with (--dry-run): its query, the saved one unless given, split as --parallel splits it. */
export async function syncFirstRequests(plan: SyncPlan): Promise<FirstRequest[]> {
  const saved = plan.query ? undefined : await savedSync(plan.db, plan.name);
  return firstRequests(queryPlan(plan, chooseQuery(plan, saved)), undefined, plan.parallel);
}

/** The service sync NAME copies, for a run that names none (commands/settings.ts); undefined before its first run. */
export async function savedSyncService(db: StoreTarget, name: string): Promise<string | undefined> {
  return (await savedSync(db, name))?.service;
}

/** Sync NAME as the copy holds it, read without the write lock. */
async function savedSync(db: StoreTarget, name: string): Promise<SyncInfo | undefined> {
  const store = await openStore(db.location, { mode: 'read', definitionsOnly: true, ...targetOptions(db) }).catch((err: unknown) => {
    // No copy yet: the first run walks every tender. Any other failure (a server down, a refused login)
    // is the caller's: what the sync saved is not known.
    if (err instanceof NoCopyError) return undefined;
    throw err;
  });
  if (!store) return undefined;
  try {
    return await store.getSync(name);
  } finally {
    await store.close();
  }
}

/** What a sync's query asks of the service: its path and the body of every page. */
function queryPlan(plan: SyncPlan, query: SavedQuery): QueryPlan {
  return { path: plan.pathFor(query.org), body: { ...query.body, limit: plan.limit }, noun: 'tenders', fieldsCommand: 'tenders fields' };
}

/** The service a sync is bound to: the base URL without credentials, written as a user writes it (no trailing slash, as a watch's). */
function service(plan: SyncPlan): string {
  const url = new URL(plan.connection.baseUrl);
  url.username = '';
  url.password = '';
  return url.href.replace(/\/+$/, '');
}

/**
 * The query to walk: the command line's, else the saved one. Another query
 * or service than the saved ones is a usage error naming both, unless
 * --reset (checked here, before the lock and any request; the store checks it too).
 */
function chooseQuery(plan: SyncPlan, saved: SyncInfo | undefined): SavedQuery {
  const savedQuery = saved?.query as SavedQuery | undefined; // what runSync saved
  if (saved && savedQuery && !plan.reset) {
    if (plan.query && !sameQuery(plan.query, savedQuery)) {
      throw new UsageError(
        `sync ${plan.name} follows '${describeQuery(savedQuery)}', not '${describeQuery(plan.query)}': ` +
          'leave the filters out to use the saved ones, or add --reset to follow the new ones',
      );
    }
    if (saved.service !== service(plan)) {
      throw new UsageError(
        `sync ${plan.name} copies ${saved.service}, not ${service(plan)}: ` +
          'leave --base-url and TENDERS_BASE_URL out to reach the saved service, or add --reset to copy the new one',
      );
    }
  }
  return plan.query ?? savedQuery ?? EVERY_TENDER;
}

async function walkAndCommit(plan: SyncPlan, session: Session, run: SyncRun, query: SavedQuery, saved: SyncInfo | undefined): Promise<void> {
  const { say, client, signal, receipt } = session;
  const newOnly = plan.newOnly && !run.baseline;
  const stopEarly = newOnly && newestFirst(query.body) && plan.parallel === 1;
  if (plan.newOnly && run.baseline) say.debug('--new-only: this is the first run of the sync, so it stores every tender (the baseline)');
  else if (newOnly && !stopEarly) say.debug('--new-only walks every page here: it stops early only in the default order (publicationDate, newest first) on one chain');
  // --new-only decides after each page whether to ask for the next one: no page is asked for ahead.
  const source = openSource({ client, query: queryPlan(plan, query), signal, parallel: plan.parallel, sortPaths: plan.sortPaths, prefetch: stopEarly ? false : undefined }, say);
  if (receipt) receipt.source = source;
  const progress = await session.showProgress();
  let seen = 0;
  let receiptRow: RunReceipt | undefined;
  const pages = source.pages();
  try {
    try {
      for await (const items of { [Symbol.asyncIterator]: () => pages }) {
        const news = stopEarly ? await newTenders(run, items) : 1;
        await run.add(items);
        seen += items.length;
        progress.update({ pages: source.fetched, rows: seen, total: source.total });
        if (signal.aborted) throw signal.reason;
        if (news === 0) break; // a page with nothing new: what follows is older still
      }
    } finally {
      await pages.return(undefined); // stops the pager (and its request in flight) when the walk did not get to the end
    }
    const facts = { complete: true, pages: source.fetched, requests: requests(session) };
    session.onCommit(async () => {
      receiptRow = await run.commit(facts);
    });
    await session.commit();
  } catch (err) {
    // A failure (not an interruption) leaves its receipt row, complete = 0; the copy stays as it was.
    if (!signal.aborted) {
      receiptRow = await run
        .commit({ complete: false, pages: source.fetched, requests: requests(session), error: oneLine(err) })
        .catch(() => undefined);
    }
    throw err;
  } finally {
    if (receipt) {
      receipt.rows = seen;
      receipt.extra = { sync: syncReceipt(plan, receiptRow) };
    }
  }
  report(session, plan, receiptRow!, source, saved);
}

/** How many of a page's tenders the sync does not hold yet. */
async function newTenders(run: SyncRun, items: readonly Record<string, unknown>[]): Promise<number> {
  const ids = items.map(tenderId).filter((id): id is string => id !== undefined);
  const known = await run.known(ids);
  return ids.filter((id) => !known.has(id)).length;
}

const requests = (session: Session) => session.client.stats?.requests ?? 0;

const oneLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0]!;

/** A sync's own part of its receipt: the copy, the store's run and its counts. */
function syncReceipt(plan: SyncPlan, row: RunReceipt | undefined) {
  return {
    name: plan.name,
    db: withoutCredentials(plan.db.location),
    run: row?.run ?? null,
    mode: row?.mode ?? (plan.newOnly ? 'new-only' : 'full'),
    baseline: row?.baseline ?? null,
    committed: Boolean(row?.complete),
    counts: row?.counts ?? null,
  };
}

/** Silent, as cron wants it; on a terminal or with --verbose one line: what changed, the tenders held, how long, where the copy is. */
function report(session: Session, plan: SyncPlan, row: RunReceipt, source: ResultSource, saved: SyncInfo | undefined): void {
  const { say } = session;
  const { counts } = row;
  if (row.recodedFrom) {
    say.warn(
      `the copy's CPV codes were read from ${row.recodedFrom.join(',')}; this sync's cpv-paths is ${plan.cpvPaths.join(',')}, ` +
        "so every stored tender's codes were read again from it (docs/settings.md)",
    );
  }
  if (counts.withoutId > 0) say.warn(`${formatCounted(counts.withoutId, 'tenders')} without an id ${counts.withoutId === 1 ? 'was' : 'were'} left out: a sync keeps tenders by their id`);
  if (row.mode === 'full') session.checkCount(source, counts.seen, (seen) => `the walk saw ${seen}`);
  const held = (saved?.tenders ?? 0) + counts.new - counts.gone;
  const took = formatDuration(performance.now() - session.started);
  say.hint(`sync ${plan.name}: ${summary(row, counts)} (${formatCounted(held, 'tenders')}, ${formatCounted(row.pages, 'pages')} in ${took}) in ${withoutCredentials(plan.db.location)}`);
  session.summary(
    [
      `${formatCounted(counts.seen, 'tenders')} in ${formatCounted(source.fetched, 'pages')}${source.complete ? '' : ' (stopped early)'}`,
      `${formatCounted(source.dropped + counts.repeated, 'duplicates')} dropped`,
    ],
    source.chains(),
  );
}

function summary(row: RunReceipt, counts: RunCounts): string {
  if (row.baseline) return 'baseline recorded';
  const news = `${formatCount(counts.new)} new`;
  return row.mode === 'new-only' ? `${news} (changed and gone tenders are looked for without --new-only)` : `${news}, ${formatCount(counts.changed)} changed, ${formatCount(counts.gone)} gone`;
}
