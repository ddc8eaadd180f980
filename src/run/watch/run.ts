import type { Page } from '../../api/page.js';
import { UsageError } from '../../errors.js';
import { nodeFs, readChunks, type FileSystem } from '../../files/fs.js';
import { formatCount, formatCounted } from '../../model/numbers.js';
import type { FirstRequest } from '../../model/request.js';
import type { QueryPlan, RunDeps, WatchPlan } from '../plan.js';
import { runSession, type Session } from '../session.js';
import { firstRequests } from '../partition.js';
import { openSource, type ResultSource } from '../source.js';
import { WatchDiff, type DiffMode, type WatchChange } from './watch-changes.js';
import { FieldTable } from './field-table.js';
import type { KnownTenders } from './known.js';
import { watchFiles } from './location.js';
import { openPlace, placedError, type WatchPlace } from './place.js';
import type { WatchFeedInfo } from '../../output/formats/atom-formatter.js';
import { Deliveries } from './deliveries.js';
import { ChangeOutput } from './output.js';
import { describeQuery, newestFirst, sameQuery } from './query.js';
import { StateWriter } from './state-writer.js';
import { EVERY_TENDER, type SavedQuery } from '../../model/saved-search.js';
import { rangePieces, readHeader, StateError, type LoadedState, type StateHeader } from './state.js';

/**
 * Runs a watch: under its lock, walks its query, prints what is new, changed
 * or gone since the last run, and only then, once the output was delivered,
 * replaces the state. A run that fails leaves the state as it was, so the
 * next one reports the same changes.
 */
export function runWatch(plan: WatchPlan, deps: RunDeps): Promise<void> {
  const alsoWrites = plan.feed === undefined ? [] : [{ flag: '--feed', file: plan.feed }];
  // A file-kept state is locked by the session; a copy's by the place, with the copy's lock.
  const stateLock = plan.db ? undefined : watchFiles(plan.dir!, plan.name).state;
  const sessionPlan = { ...plan, query: queryPlan(plan, plan.query ?? EVERY_TENDER), stateLock, alsoWrites };
  return runSession(sessionPlan, deps, async (session) => {
    const place = await openPlace(plan, session);
    try {
      const header = await place.header().catch((err: unknown) => {
        if (plan.reset) return undefined; // a damaged state is what --reset is for
        throw err;
      });
      checkService(plan, header);
      const query = chooseQuery(plan, header);
      if (session.receipt) session.receipt.query = queryPlan(plan, query);
      const mode: DiffMode = !header || plan.reset ? 'baseline' : plan.newOnly ? 'new-only' : 'full';
      const created = (!plan.reset && header?.created) || new Date().toISOString();
      await walkAndCommit(plan, session, place, { name: plan.name, query, created, service: serviceOf(plan) }, mode);
    } catch (err) {
      throw placedError(err, place);
    }
  });
}

/** The requests a run of the watch starts with (--dry-run): its query, the saved one unless given, split as --parallel splits it. */
export async function watchFirstRequests(plan: WatchPlan): Promise<FirstRequest[]> {
  const header = await savedWatch(plan);
  checkService(plan, header);
  return firstRequests(queryPlan(plan, chooseQuery(plan, header)), undefined, plan.parallel);
}

/** The service watch NAME follows, for a run that names none (commands/settings.ts); undefined before its first run. */
export async function savedWatchService(where: SavedWatch): Promise<string | undefined> {
  return (await savedWatch(where))?.service;
}

type SavedWatch = Pick<WatchPlan, 'name' | 'dir' | 'db' | 'reset'>;

/** The header of watch NAME's state, read without its lock; a damaged one is what --reset is for. */
function savedWatch(where: SavedWatch): Promise<StateHeader | undefined> {
  const saved = where.db
    ? import('./postgres-place.js').then(({ savedHeader }) => savedHeader(where, where.db!, nodeFs))
    : readHeader(watchFiles(where.dir!, where.name).state);
  return saved.catch((err: unknown) => {
    if (where.reset) return undefined;
    throw err;
  });
}

/** What a watch's query asks of the service: its path and the body of every page. */
function queryPlan(plan: WatchPlan, query: SavedQuery): QueryPlan {
  return { path: plan.pathFor(query.org), body: { ...query.body, limit: plan.limit }, noun: 'tenders', fieldsCommand: 'tenders fields' };
}

/**
 * A watch follows the service it was made against: its tenders and their
 * changes mean nothing against another one. A state from before the service
 * was kept adopts the current one.
 */
function checkService(plan: WatchPlan, header: StateHeader | undefined): void {
  const saved = header?.service;
  const current = serviceOf(plan);
  if (saved === undefined || plan.reset || saved === current) return;
  throw new UsageError(
    `watch ${plan.name} follows the service at ${saved}, not ${current}: ` +
      'leave --base-url and TENDERS_BASE_URL out to use that service, or add --reset to follow this one from a new baseline',
  );
}

/** The base URL as the user writes it: no trailing slash (http://host and http://host/ are one service). */
const serviceOf = (plan: WatchPlan) => plan.connection.baseUrl.href.replace(/\/+$/, '');

/** The query to walk: the command line's, else the saved one; a different one only with --reset. */
function chooseQuery(plan: WatchPlan, header: StateHeader | undefined): SavedQuery {
  const saved = header?.query;
  if (plan.query && saved && !plan.reset && !sameQuery(plan.query, saved)) {
    throw new UsageError(
      `watch ${plan.name} follows '${describeQuery(saved)}', not '${describeQuery(plan.query)}': ` +
        'leave the filters out to use the saved ones, or add --reset to follow the new ones from a new baseline',
    );
  }
  return plan.query ?? saved ?? EVERY_TENDER;
}

async function walkAndCommit(plan: WatchPlan, session: Session, place: WatchPlace, header: StateHeader, mode: DiffMode): Promise<void> {
  const { say, fs, client, signal, receipt } = session;
  const { files } = place;
  const loading = mode === 'baseline' ? undefined : place.load();
  loading?.catch(() => undefined); // awaited below; a failure before then must not go unhandled
  // A run that fails before it awaits the state lets its read end first: it may be reading from the connection its lock is on.
  session.onAbandon(async () => void (await loading?.catch(() => undefined)));
  // --new-only decides when to stop by what the state knew: it loads first (its walk is short).
  let previous = mode === 'new-only' ? await loading : undefined;
  const newest = previous?.summary.newestPublicationDate ?? null;
  const stopEarly = mode === 'new-only' && newestFirst(header.query.body) && newest !== null;
  if (mode === 'new-only' && !stopEarly) {
    say.debug('--new-only walks every page here: it stops early only in the default order (publicationDate, newest first)');
  }

  // --feed FILE is read (and refused when it is not this watch's feed) before any request.
  const deliveries = await Deliveries.open(plan, session);
  const writer = await StateWriter.create(files.temp, header, fs);
  session.onAbandon(() => writer.abandon());
  let committed = false;
  const out = await session.openOutput();
  // Changes come in bursts, mostly at the end: a spinner shows the walk until the first of them
  // reaches a terminal's stdout (after that it would garble the table).
  const progress = await session.showProgress({ untilData: true });
  const { terminal: _terminal, ...display } = session.formatOptions();
  // A change's feed entry id names the run it is since: the previous one (the same change, reported again, keeps its id).
  const feedOf = (): WatchFeedInfo => ({ name: plan.name, since: previous?.summary.lastRun ?? header.created });
  let feedInfo = feedOf();
  const changes = new ChangeOutput(plan.output, out.write, { width: display.width, color: display.color, terminal: out.terminal }, () => feedInfo);
  const found = (list: WatchChange[]) => {
    if (mode !== 'baseline') deliveries.add(list, feedInfo); // a baseline posts and adds nothing
    return changes.add(list);
  };
  let diff: WatchDiff | undefined;
  const source = openSource(
    {
      client,
      query: queryPlan(plan, header.query),
      signal,
      parallel: plan.parallel,
      sortPaths: plan.sortPaths,
      stopAfter: stopEarly ? (page) => nothingNewSince(page, diff!, newest) : undefined,
    },
    say,
  );
  if (stopEarly && source.by) say.debug('--new-only reads every page of a --parallel walk: it stops early on one chain only');
  if (receipt) receipt.source = source;
  const pages = source.pages();
  try {
    // A full run loads what it knew while the service sends its first pages.
    let early: Record<string, unknown>[][] = [];
    if (mode === 'full') [previous, early] = await pullWhileLoading(loading!, pages);
    feedInfo = feedOf();
    const table = previous?.table ?? new FieldTable();
    diff = new WatchDiff(mode, previous?.known, table, mode !== 'baseline' || plan.initial === 'all', newest);
    let first = true;
    const consume = async (items: Record<string, unknown>[]) => {
      if (first) changes.firstPage(items);
      first = false;
      const list = diff!.page(items, (line) => writer.add(line));
      await diff!.recall((ranges) => rangePieces(files.state, ranges, fs));
      await found(list);
      await writer.flush();
      progress.update({ pages: source.fetched, rows: diff!.counts.seen, total: source.total });
      if (signal.aborted) throw signal.reason;
      place.check();
    };
    for (const items of early) await consume(items);
    for await (const items of { [Symbol.asyncIterator]: () => pages }) await consume(items);
    // A full walk reaches the last page or fails: now unchanged tenders are carried over and unseen ones gone.
    if (mode === 'full') {
      await settle(files.state, previous!.known, diff, writer, found, signal, fs);
    } else if (mode === 'new-only') {
      await carryOver(files.state, previous!, writer, fs);
    }
    await changes.end();
    const finished = diff;
    // The feed and the webhooks first: the state moves only once every delivery succeeded.
    session.onCommit(() => deliveries.deliver(session, header.query, feedInfo.since));
    session.onCommit(async () => {
      await writer.commit(files.state, { lastRun: new Date().toISOString(), newestPublicationDate: finished.newest, fields: table.fields });
      await place.save();
      committed = true;
    });
    await session.commit();
  } finally {
    await pages.return(undefined); // stops the pager (and its request in flight) when the run did not get to the end
    if (receipt) {
      receipt.rows = changes.rows;
      receipt.extra = { watch: { ...watchReceipt(plan, place.label, mode, diff, committed), ...deliveries.receipt } };
    }
  }
  for (const line of changes.warnings()) say.warn(line);
  for (const line of changes.hints()) say.hint(line);
  report(session, plan, mode, diff, source);
}

/** At most this many pages are held while the previous state loads. */
const EARLY_PAGES = 32;

/**
 * Waits for the previous state, pulling pages meanwhile (a few at most): the
 * service works on the walk while the state is read, instead of after.
 */
async function pullWhileLoading(
  loading: Promise<LoadedState>,
  pages: AsyncGenerator<Record<string, unknown>[]>,
): Promise<[LoadedState, Record<string, unknown>[][]]> {
  const early: Record<string, unknown>[][] = [];
  let loaded = false;
  const pulling = (async () => {
    while (!loaded && early.length < EARLY_PAGES) {
      const next = await pages.next();
      if (next.done) return;
      early.push(next.value);
    }
  })();
  pulling.catch(() => undefined); // handled below, once the state is read
  try {
    const state = await loading;
    loaded = true;
    await pulling; // a page that failed meanwhile
    return [state, early];
  } catch (err) {
    loaded = true;
    await pulling.catch(() => undefined); // a damaged state is the error to report
    throw err;
  }
}

/** A watch's own part of its receipt: its state, what it compared and found, and whether its state moved. */
function watchReceipt(plan: WatchPlan, state: string, mode: DiffMode, diff: WatchDiff | undefined, committed: boolean) {
  const counts = diff?.counts ?? { new: 0, changed: 0, gone: 0, seen: 0 };
  return {
    name: plan.name,
    state,
    mode,
    tendersSeen: counts.seen,
    changes: { new: counts.new, changed: counts.changed, gone: counts.gone },
    stateCommitted: committed,
  };
}

/**
 * After a full walk, in one read of the previous state: unchanged tenders'
 * lines copied into the next state as they are, unseen ones reported gone.
 */
async function settle(
  file: string,
  known: KnownTenders,
  diff: WatchDiff,
  writer: StateWriter,
  report: (gone: WatchChange[]) => Promise<void>,
  signal: AbortSignal,
  fs: FileSystem,
): Promise<void> {
  const { carry, tenders, gone } = known.leftovers();
  const ranges = [...carry.map((range, i) => ({ range, tenders: tenders[i]! })), ...gone.map((range) => ({ range, tenders: -1 }))].sort(
    (a, b) => a.range[0] - b.range[0],
  );
  let goneLines: Buffer[] = [];
  let pieces: Buffer[] = [];
  let last = -1;
  // A gone tender's title and deadline are read only now (loading checks a line's shape, not its JSON).
  const reportGone = async (lines: Buffer[]) => {
    let changes: WatchChange[];
    try {
      changes = diff.gone(lines);
    } catch (err) {
      throw new StateError(file, 'has a damaged line: the title or deadline of a tender it held is not JSON', { cause: err });
    }
    await report(changes);
  };
  const endGone = () => {
    if (pieces.length) goneLines.push(pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces));
    pieces = [];
  };
  for await (const [r, piece] of rangePieces(file, ranges.map((x) => x.range), fs)) {
    const { tenders: count } = ranges[r]!;
    if (r !== last) endGone();
    if (count >= 0) writer.carry(piece, r === last ? 0 : count);
    else pieces.push(piece);
    last = r;
    if (goneLines.length >= 100) {
      await reportGone(goneLines);
      goneLines = [];
    }
    await writer.flush();
    if (signal.aborted) throw signal.reason;
  }
  endGone();
  await reportGone(goneLines);
}

/** The previous state's tender lines, byte for byte, into the next state. */
async function carryOver(file: string, previous: LoadedState, writer: StateWriter, fs: FileSystem): Promise<void> {
  const [start, end] = previous.tenderBytes;
  let tenders = previous.summary.tenders;
  if (end > start) {
    for await (const chunk of readChunks(fs, file, { start, end: end - 1, highWaterMark: 1 << 20 })) {
      writer.carry(chunk, tenders);
      tenders = 0; // counted with the first chunk
      await writer.flush();
    }
  }
}

/** --new-only in the default order: a page with nothing new that ends before the newest date known ends the walk. */
function nothingNewSince(page: Page, diff: WatchDiff, newest: string): boolean {
  const last = page.items.at(-1)?.publicationDate;
  return typeof last === 'string' && last < newest && !page.items.some((tender) => diff.isNew(tender));
}

function report(session: Session, plan: WatchPlan, mode: DiffMode, diff: WatchDiff, source: ResultSource): void {
  const { say } = session;
  const { counts } = diff;
  const name = `watch ${plan.name}`;
  if (counts.withoutId > 0) say.warn(`${formatCounted(counts.withoutId, 'tenders')} without an id ${counts.withoutId === 1 ? 'was' : 'were'} left out: a watch follows tenders by their id`);
  const walked = counts.seen;
  if (mode !== 'new-only') session.checkCount(source, walked, (seen) => `the walk saw ${seen}`);
  if (mode === 'baseline') {
    say.hint(`${name}: baseline of ${formatCount(counts.new)} tenders recorded; the next run shows what changed`);
  } else if (mode === 'new-only') {
    say.hint(`${name}: ${formatCount(counts.new)} new (changed and gone tenders are looked for without --new-only)`);
  } else {
    say.hint(`${name}: ${formatCount(counts.new)} new, ${formatCount(counts.changed)} changed, ${formatCount(counts.gone)} gone`);
  }
  session.summary([
    `${name}: ${formatCounted(walked, 'tenders')} in ${formatCounted(source.fetched, 'pages')}${source.complete ? '' : ' (stopped early)'}`,
    `${formatCounted(source.dropped + counts.repeated, 'duplicates')} dropped`,
  ]);
}
