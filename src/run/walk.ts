import type { Total } from '../model/total.js';
import { partialPath } from '../output/atomic-file.js';
import { OutputDigest } from '../output/digest.js';
import { nodeFs, type FileSystem } from '../output/fs.js';
import { acquireLock } from '../output/lock.js';
import { openOutput, resolveTarget, type Target } from '../output/target.js';
import { displayOptions } from '../output/display.js';
import { createFormatter, type Formatter } from '../output/formatter.js';
import { formatCount, formatCounted, formatDuration, formatSize, formatTotal } from '../output/numbers.js';
import { createProgress } from '../output/progress.js';
import { newFieldsWarning } from '../output/new-fields.js';
import { createReporter, type Reporter } from '../output/reporter.js';
import { UnknownColumns } from '../output/unknown-columns.js';
import { shellLine } from '../output/shell.js';
import type { RunDeps, WalkPlan } from './plan.js';
import { ReceiptBuilder } from './receipt.js';
import { fingerprint, loadState, removeState, saveState, type ResumeState } from './resume-state.js';
import { openSource, type ResultSource } from './source.js';

/**
 * Runs a search or export: pages from the pager, boundary duplicates dropped,
 * each page formatted and written as one chunk as it arrives. What -o names is
 * decided (and refused, exit 2) before any request; a file is written
 * atomically by one process at a time (a lock beside it) and, for exports, is
 * resumable after a page-level checkpoint. With --receipt, a record of the
 * run is written when it ends, however it ends.
 */
export async function runWalk(plan: WalkPlan, deps: RunDeps): Promise<void> {
  const fs = deps.fs ?? nodeFs;
  const say = createReporter(deps.io, plan.connection);
  const target = await resolveTarget(plan.output.file, plan.output.resume, fs);
  if (plan.receipt) await ReceiptBuilder.check(plan.receipt.file, fs, target);
  const receipt = plan.receipt && new ReceiptBuilder(plan.receipt, plan.connection, plan.query, plan.parallel, deps.client);
  const release = target.kind === 'file' ? await acquireLock(target.path, { fs, log: say.debug, named: `-o ${plan.output.file}` }) : undefined;
  try {
    await walkInto(target, plan, deps, say, fs, receipt);
  } catch (err) {
    // The run's own failure is the one to report; a receipt that cannot be written is said besides.
    await receipt?.write(err, fs).catch((e: Error) => say.warn(e.message));
    throw err;
  } finally {
    await release?.();
  }
  await receipt?.write(undefined, fs);
}

async function walkInto(
  target: Target,
  plan: WalkPlan,
  { io, client, signal }: RunDeps,
  say: Reporter,
  fs: FileSystem,
  receipt: ReceiptBuilder | undefined,
): Promise<void> {
  const { connection, query, output } = plan;
  const file = target.kind === 'file' ? target.path : undefined;
  const toStdout = target.kind === 'stdout';
  const print = fingerprint(query, output, plan.max, plan.parallel);
  const saved = file && output.resume ? await usableState(file, print, say, fs) : undefined;
  const resumable = file !== undefined && plan.resumable;
  const out = await openOutput(target, { stdout: io.stdout, stdoutIsTTY: io.stdoutIsTTY, signal, keepBytes: saved?.bytes, fs, onWait: say.hint });
  let checkpointed = Boolean(saved);
  // Rows a --resume keeps: those of the last checkpoint, not a page written after it.
  let kept = saved?.formatter.rows ?? 0;
  let finished = false;
  let walk: WalkState | undefined;
  let unknown: UnknownColumns | undefined;
  // Never over data on the terminal itself; rows of an interrupted run count, but not in the rate.
  const progress = await createProgress(io, !connection.quiet && !connection.verbose && !out.terminal, query.noun, saved?.formatter.rows);
  try {
    const formatter = await createFormatter(
      output.format,
      {
        columns: output.columns,
        defaultColumns: output.defaultColumns,
        sortColumn: output.sortColumn,
        header: output.header,
        headerStyle: output.headerStyle,
        excelSafe: output.excelSafe,
        ...displayOptions(io, toStdout),
        terminal: out.terminal,
      },
      saved?.formatter,
    );
    if (resumable && !saved) await removeState(file, fs);
    const source = openSource(
      {
        client,
        query,
        signal,
        cursor: plan.cursor,
        maxItems: plan.max === undefined ? undefined : plan.max - (saved?.formatter.rows ?? 0),
        prefetch: plan.all || plan.max !== undefined, // a single page asks for no other
        saved: saved && { position: saved, total: saved.total, pages: saved.pages },
        parallel: plan.parallel,
        sortPaths: plan.sortPaths,
      },
      say,
    );
    const digest = receipt && (saved ? await OutputDigest.ofPrefix(partialPath(file!), saved.bytes) : new OutputDigest());
    const write = digest
      ? async (chunk: string) => {
          await out.write(chunk);
          digest.update(chunk);
        }
      : (chunk: string) => out.write(chunk);
    walk = new WalkState(plan, formatter, write, source, saved);
    if (receipt) {
      receipt.source = source;
      receipt.output = { file: plan.output.file, committed: false, digest: digest! };
      if (saved) receipt.resumed = { rows: saved.formatter.rows, pages: saved.pages };
    }
    // A resumed run has not seen the first page: it cannot judge --columns.
    unknown = saved ? undefined : unknownColumns(plan);
    for await (const items of source.pages()) {
      unknown?.scan(items);
      const done = await walk.add(items);
      if (receipt) {
        receipt.rows = walk.rows;
        if (formatter.droppedFields) receipt.csvFieldsDropped = formatter.droppedFields().length;
      }
      if (resumable && out.kind === 'file') {
        await saveState(file, walk.checkpoint(print, out.bytes), fs);
        checkpointed = true;
        kept = walk.rows;
      }
      progress.update(walk);
      if (signal.aborted) throw signal.reason;
      if (done) break;
    }
    await write(formatter.end());
    await out.finish();
    if (receipt) receipt.output!.committed = true;
    if (resumable) await removeState(file, fs);
    finished = true;
  } catch (err) {
    if (resumable && checkpointed) {
      (err as Error).message += `; the ${formatCount(kept)} ${query.noun} written so far are kept in ${partialPath(file)}: run the same command with --resume to continue`;
    }
    throw err;
  } finally {
    progress.stop();
    if (!finished) await out.abandon(checkpointed && resumable);
  }
  for (const line of unknown?.warnings(query.fieldsCommand ?? 'tenders fields') ?? []) say.warn(line);
  walk.report(say);
  if (out.kind === 'file') walk.reportFile(say, plan.output.file!, out.bytes, saved?.formatter.rows ?? 0);
}

/** With --columns: what tells a typo from a field (a table header is a known alias of its path). */
function unknownColumns(plan: WalkPlan): UnknownColumns | undefined {
  const { columns, defaultColumns } = plan.output;
  if (!columns) return undefined;
  return new UnknownColumns(columns, new Map((defaultColumns ?? []).flatMap((c) => (c.header ? [[c.header.toLowerCase(), c.path] as const] : []))));
}

/** A saved state that belongs to this very export, else undefined (and why, on stderr). */
async function usableState(file: string, print: string, say: Reporter, fs: FileSystem): Promise<ResumeState | undefined> {
  const state = await loadState(file, fs);
  const partial = await fs.lstat(partialPath(file)).catch(() => undefined);
  const why = !state
    ? `no interrupted export of ${file} to resume`
    : state.fingerprint !== print
      ? `the interrupted export of ${file} was of a different query or format`
      : partial && !partial.isFile()
        ? `${partialPath(file)} is not a regular file (a link?), so it is not continued`
        : (partial?.size ?? -1) < state.bytes
          ? `${partialPath(file)} is missing or shorter than its saved state`
          : undefined;
  if (why) {
    say.warn(`${why}; starting afresh`);
    return undefined;
  }
  say.debug(`resuming ${file} after ${formatCount(state!.formatter.rows)} rows, ${state!.pages} pages`);
  return state;
}

/** Rows written and where the walk stands; what a checkpoint saves. */
class WalkState {
  rows: number;
  readonly #started = performance.now();
  /** Nothing more is wanted: the end, or --max, was reached. */
  #stopped = false;
  /** --max ended the walk inside a page: the next cursor would skip the rest of it. */
  #cut = false;

  constructor(
    private readonly plan: WalkPlan,
    private readonly formatter: Formatter,
    private readonly write: (chunk: string) => Promise<void>,
    private readonly source: ResultSource,
    saved: ResumeState | undefined,
  ) {
    this.rows = saved?.formatter.rows ?? 0;
  }

  get pages(): number {
    return this.source.fetched;
  }

  get total(): Total | null {
    return this.source.total;
  }

  /** Writes one page of results; true when the walk should stop after it. */
  async add(pageItems: Record<string, unknown>[]): Promise<boolean> {
    const { max, all } = this.plan;
    const items = max !== undefined && this.rows + pageItems.length > max ? pageItems.slice(0, max - this.rows) : pageItems;
    await this.write(this.formatter.page(items));
    this.rows += items.length;
    this.#cut = items.length < pageItems.length;
    const end = this.source.complete;
    const done = end || (max !== undefined ? this.rows >= max : !all);
    this.#stopped = done && (end || max !== undefined);
    return done;
  }

  checkpoint(print: string, bytes: number): ResumeState {
    return {
      version: 1,
      fingerprint: print,
      ...this.source.position(this.#stopped),
      bytes,
      pages: this.pages,
      formatter: this.formatter.state(),
      total: this.total,
    };
  }

  /** The closing line of a walk into a file, for a person at the terminal (a hint: not in cron, not with -q). */
  reportFile(say: Reporter, file: string, bytes: number, resumedRows: number): void {
    const resumed = resumedRows > 0 ? `, continuing after ${formatCount(resumedRows)} written before` : '';
    const time = formatDuration(performance.now() - this.#started);
    say.hint(`Wrote ${formatCounted(this.rows, this.plan.query.noun)} to ${file} (${formatSize(bytes)}) in ${time}${resumed}.`);
  }

  report(say: Reporter): void {
    const { plan, source } = this;
    const noun = plan.query.noun;
    for (const line of this.formatter.hints?.() ?? []) say.hint(line);
    const total = this.total;
    if (plan.hints) {
      // Where this page starts is known on the first page, and after a hint that said it (--shown).
      const before = plan.cursor === undefined ? 0 : plan.shown;
      const range = before === undefined ? '' : `${formatCount(before + 1)}–${formatCount(before + this.rows)} `;
      if (this.rows === 0) say.hint(`No ${noun} match.`);
      else if (total && plan.cursor === undefined) say.hint(`Showing ${range}of ${formatTotal(total)} ${total.count === 1 && !total.capped ? noun.replace(/s$/, '') : noun}.`);
      else if (range) say.hint(`Showing ${range}${noun}.`);
      else say.hint(`Showing ${formatCounted(this.rows, noun)}.`);
      // After --max too, unless it ended inside a page (the next cursor would skip the rest of that page).
      if ((!this.#stopped || (!source.complete && !this.#cut)) && source.nextCursor) {
        const next = ['--cursor', source.nextCursor, ...(before === undefined ? [] : ['--shown', String(before + this.rows)])];
        // The command on a line of its own, never cut: a terminal only wraps it softly.
        if (plan.nextPageArgs) {
          say.hint('Next page:');
          say.hint(shellLine(['tenders', ...plan.nextPageArgs, ...next]));
        } else say.hint(`Next page: add ${next.join(' ')}`);
      }
    }
    if (source.complete && total && !total.capped && plan.max === undefined && plan.cursor === undefined && this.rows !== total.count) {
      say.warn(
        `the service counted ${formatCount(total.count)} ${noun} but ${formatCount(this.rows)} were written: the data changed while paging`,
      );
    }
    const left = this.formatter.droppedFields?.() ?? [];
    if (left.length) say.warn(newFieldsWarning(left, this.formatter.state().columns ?? []));
    if (!say.verbose) return; // formatting numbers loads ICU data: only when shown
    const seconds = ((performance.now() - this.#started) / 1000).toFixed(1);
    const leftOut = left.length ? `, ${left.length} new fields left out of the CSV` : '';
    say.debug(`${formatCounted(this.rows, noun)} in ${formatCounted(this.pages, 'pages')}, ${formatCounted(source.dropped, 'duplicates')} dropped${leftOut}, ${seconds} s`);
    const chains = source.chains();
    if (chains.length > 1) {
      for (const chain of chains) {
        const of = chain.total ? `${formatTotal(chain.total)} ${noun} counted` : 'no count';
        say.debug(`  ${chain.value}: ${of}, ${formatCounted(chain.pages, 'pages')}${chain.complete ? '' : ', not finished'}`);
      }
    }
  }
}
