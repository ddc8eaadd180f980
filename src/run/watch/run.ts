import { mkdir } from 'node:fs/promises';
import type { Page } from '../../api/page.js';
import { UsageError } from '../../errors.js';
import { OutputDigest } from '../../output/digest.js';
import { displayOptions } from '../../output/display.js';
import { nodeFs, type FileSystem } from '../../output/fs.js';
import { acquireLock } from '../../output/lock.js';
import { formatCount } from '../../output/numbers.js';
import { createProgress } from '../../output/progress.js';
import { createReporter, type Reporter } from '../../output/reporter.js';
import { openOutput, resolveTarget, type Target } from '../../output/target.js';
import type { QueryPlan, RunDeps, WatchPlan } from '../plan.js';
import { ReceiptBuilder } from '../receipt.js';
import { openSource, type ResultSource } from '../source.js';
import { WatchDiff, type DiffMode } from './diff.js';
import { FieldTable } from './fields.js';
import { watchFiles } from './location.js';
import { ChangeOutput } from './output.js';
import { describeQuery, newestFirst, sameQuery } from './query.js';
import { StateWriter } from './state-writer.js';
import { lineBatches, loadState, readHeader, type LoadedState, type SavedQuery, type StateHeader } from './state.js';

/**
 * Runs a watch: under its lock, walks its query, prints what is new, changed
 * or gone since the last run, and only then, once the output was delivered,
 * replaces the state. A run that fails leaves the state as it was, so the
 * next one reports the same changes.
 */
export async function runWatch(plan: WatchPlan, deps: RunDeps): Promise<void> {
  const fs = deps.fs ?? nodeFs;
  const say = createReporter(deps.io, plan.connection);
  const target = await resolveTarget(plan.output.file, false, fs); // an unusable -o: exit 2 before anything
  if (plan.receipt) await ReceiptBuilder.check(plan.receipt.file, fs);
  const receipt = plan.receipt && new ReceiptBuilder(plan.receipt, plan.connection, queryPlan(plan, plan.query ?? EVERY_TENDER), plan.parallel, deps.client);
  try {
    await runLocked(plan, deps, { say, target, fs, files: watchFiles(plan.dir, plan.name), receipt });
  } catch (err) {
    // The run's own failure is the one to report; a receipt that cannot be written is said besides.
    await receipt?.write(err, fs).catch((e: Error) => say.warn(e.message));
    throw err;
  }
  await receipt?.write(undefined, fs);
}

const EVERY_TENDER: SavedQuery = { org: null, body: {} };

/** What a watch's query asks of the service: its path and the body of every page. */
function queryPlan(plan: WatchPlan, query: SavedQuery): QueryPlan {
  return { path: plan.pathFor(query.org), body: { ...query.body, limit: plan.limit }, noun: 'tenders', fieldsCommand: 'tenders fields' };
}

interface RunParts {
  say: Reporter;
  files: ReturnType<typeof watchFiles>;
  target: Target;
  fs: FileSystem;
  receipt: ReceiptBuilder | undefined;
}

/** Under the watch's lock (and the output file's): the saved query, the state, the walk. */
async function runLocked(plan: WatchPlan, deps: RunDeps, parts: RunParts): Promise<void> {
  const { say, files, target, fs, receipt } = parts;
  await mkdir(plan.dir, { recursive: true, mode: 0o700 });
  const releaseState = await acquireLock(files.state, { fs, log: say.debug });
  try {
    const header = await readHeader(files.state).catch((err: unknown) => {
      if (plan.reset) return undefined; // a damaged state is what --reset is for
      throw err;
    });
    const query = chooseQuery(plan, header);
    if (receipt) receipt.query = queryPlan(plan, query);
    const previous = header && !plan.reset ? await loadState(files.state) : undefined;
    const created = previous?.header.created ?? new Date().toISOString();
    const releaseOutput = target.kind === 'file' ? await acquireLock(target.path, { fs, log: say.debug }) : undefined;
    try {
      await walkAndCommit(plan, deps, parts, { name: plan.name, query, created }, previous);
    } finally {
      await releaseOutput?.();
    }
  } finally {
    await releaseState();
  }
}

/** The query to walk: the command line's, else the saved one; a different one only with --reset. */
function chooseQuery(plan: WatchPlan, header: StateHeader | undefined): SavedQuery {
  const saved = header?.query;
  if (plan.query && saved && !plan.reset && !sameQuery(plan.query, saved)) {
    throw new UsageError(
      `watch ${plan.name} follows '${describeQuery(saved)}', not '${describeQuery(plan.query)}': ` +
        'leave the filters out to use the saved ones, or add --reset to follow the new ones from a new baseline',
    );
  }
  return plan.query ?? saved ?? { org: null, body: {} };
}

async function walkAndCommit(
  plan: WatchPlan,
  { io, client, signal }: RunDeps,
  { say, files, target, fs, receipt }: RunParts,
  header: StateHeader,
  previous: LoadedState | undefined,
): Promise<void> {
  const started = performance.now();
  const mode: DiffMode = !previous ? 'baseline' : plan.newOnly ? 'new-only' : 'full';
  const table = previous?.table ?? new FieldTable();
  const newest = previous?.summary.newestPublicationDate ?? null;
  const diff = new WatchDiff(mode, previous?.known, table, mode !== 'baseline' || plan.initial === 'all', newest);
  const stopEarly = mode === 'new-only' && newestFirst(header.query.body) && newest !== null;
  if (mode === 'new-only' && !stopEarly) {
    say.debug('--new-only walks every page here: it stops early only in the default order (publicationDate, newest first)');
  }

  const writer = await StateWriter.create(files.temp, header, fs);
  const toStdout = target.kind === 'stdout';
  let committed = false;
  let delivered = false;
  const out = await openOutput(target, { stdout: io.stdout, stdoutIsTTY: io.stdoutIsTTY, signal, fs }).catch(async (err: unknown) => {
    await writer.abandon();
    throw err;
  });
  const digest = receipt && new OutputDigest();
  const changes = new ChangeOutput(
    plan.output,
    async (chunk) => {
      await out.write(chunk);
      digest?.update(chunk);
    },
    { ...displayOptions(io, toStdout), terminal: out.terminal },
  );
  const progress = await createProgress(io, !plan.connection.quiet && !plan.connection.verbose && !(toStdout && io.stdoutIsTTY), 'tenders');
  const source = openSource(
    {
      client,
      query: queryPlan(plan, header.query),
      signal,
      parallel: plan.parallel,
      sortPaths: plan.sortPaths,
      stopAfter: stopEarly ? (page) => nothingNewSince(page, diff, newest) : undefined,
    },
    say,
  );
  if (stopEarly && source.by) say.debug('--new-only reads every page of a --parallel walk: it stops early on one chain only');
  if (receipt) {
    receipt.source = source;
    receipt.output = { file: plan.output.file, committed: false, digest: digest! };
  }
  try {
    let first = true;
    for await (const items of source.pages()) {
      if (first) changes.firstPage(items);
      first = false;
      await changes.add(diff.page(items, (line) => writer.add(line)));
      await writer.flush();
      progress.update({ pages: source.fetched, rows: diff.counts.seen, total: source.total });
      if (signal.aborted) throw signal.reason;
    }
    // Gone only after a complete walk; a new-only run carries the rest of what it knew.
    if ((mode === 'full' && source.complete) || mode === 'new-only') {
      for await (const lines of lineBatches(files.state)) {
        await changes.add(diff.previous(lines, (line) => writer.copy(line)));
        await writer.flush();
        if (signal.aborted) throw signal.reason;
      }
    }
    await changes.end();
    await out.finish();
    delivered = true;
    if (receipt) receipt.output!.committed = true;
    await writer.commit(files.state, { lastRun: new Date().toISOString(), newestPublicationDate: diff.newest, fields: table.fields });
    committed = true;
  } finally {
    progress.stop();
    if (!delivered) await out.abandon(false);
    if (!committed) await writer.abandon();
    if (receipt) {
      receipt.rows = changes.rows;
      receipt.extra = { watch: watchReceipt(plan, files.state, mode, diff, committed) };
    }
  }
  for (const line of changes.hints()) say.hint(line);
  report(say, plan, mode, diff, source, started);
}

/** A watch's own part of its receipt: its state, what it compared and found, and whether its state moved. */
function watchReceipt(plan: WatchPlan, state: string, mode: DiffMode, diff: WatchDiff, committed: boolean) {
  const { counts } = diff;
  return {
    name: plan.name,
    state,
    mode,
    tendersSeen: counts.seen,
    changes: { new: counts.new, changed: counts.changed, gone: counts.gone },
    stateCommitted: committed,
  };
}

/** --new-only in the default order: a page with nothing new that ends before the newest date known ends the walk. */
function nothingNewSince(page: Page, diff: WatchDiff, newest: string): boolean {
  const last = page.items.at(-1)?.publicationDate;
  return typeof last === 'string' && last < newest && !page.items.some((tender) => diff.isNew(tender));
}

function report(say: Reporter, plan: WatchPlan, mode: DiffMode, diff: WatchDiff, source: ResultSource, started: number): void {
  const { counts } = diff;
  const name = `watch ${plan.name}`;
  if (counts.withoutId > 0) say.warn(`${formatCount(counts.withoutId)} tenders without an id were left out: a watch follows tenders by their id`);
  const { total } = source;
  const walked = counts.seen;
  if (mode !== 'new-only' && source.complete && total && !total.capped && walked !== total.count) {
    say.warn(`the service counted ${formatCount(total.count)} tenders but the walk saw ${formatCount(walked)}: the data changed while paging`);
  }
  if (mode === 'baseline') {
    say.hint(`${name}: baseline of ${formatCount(counts.new)} tenders recorded; the next run shows what changed`);
  } else if (mode === 'new-only') {
    say.hint(`${name}: ${formatCount(counts.new)} new (changed and gone tenders are looked for without --new-only)`);
  } else {
    say.hint(`${name}: ${formatCount(counts.new)} new, ${formatCount(counts.changed)} changed, ${formatCount(counts.gone)} gone`);
  }
  if (!say.verbose) return;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  say.debug(
    `${name}: ${formatCount(walked)} tenders in ${source.fetched} pages${source.complete ? '' : ' (stopped early)'}, ` +
      `${source.dropped + counts.repeated} duplicates dropped, ${seconds} s`,
  );
}
