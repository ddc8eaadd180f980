import { BoundaryDeduper } from './dedupe.js';
import type { Total } from '../api/page.js';
import { walkPages } from '../api/pager.js';
import { AtomicFileOutput, partialPath } from '../output/atomic-file.js';
import { openOutput, type Output } from '../output/target.js';
import { createFormatter, type Formatter } from '../output/formatter.js';
import { formatCount, formatTotal } from '../output/numbers.js';
import { createProgress } from '../output/progress.js';
import { createReporter, type Reporter } from '../output/reporter.js';
import type { RunDeps, WalkPlan } from './plan.js';
import { fingerprint, loadState, removeState, saveState, type ResumeState } from './resume-state.js';

const TABLE_FALLBACK_WIDTH = 120;

/**
 * Runs a search or export: pages from the pager, boundary duplicates dropped,
 * each page formatted and written as one chunk as it arrives. With -o the
 * output is atomic and, for exports, resumable after a page-level checkpoint.
 */
export async function runWalk(plan: WalkPlan, { io, client, signal }: RunDeps): Promise<void> {
  const { connection, query, output } = plan;
  const say = createReporter(io, connection);
  const file = output.file;
  const print = fingerprint(query, output, plan.max);
  const saved = file && output.resume ? await usableState(file, print, say) : undefined;
  const toTerminal = !file && io.stdoutIsTTY;

  const formatter = await createFormatter(
    output.format,
    {
      columns: output.columns,
      defaultColumns: output.defaultColumns,
      header: output.header,
      excelSafe: output.excelSafe,
      width: (!file && io.stdoutWidth()) || TABLE_FALLBACK_WIDTH,
      color: !file && io.colorStdout(),
    },
    saved?.formatter,
  );
  const out = await openOutput(io.stdout, file, signal, saved?.bytes ?? 0);
  const resumable = out.kind === 'file' && plan.resumable;
  if (file && plan.resumable && !saved) await removeState(file);

  const progress = await createProgress(io, !connection.quiet && !connection.verbose && !toTerminal, query.noun);
  const walk = new WalkState(plan, formatter, out, saved);
  let checkpointed = Boolean(saved);
  let finished = false;
  try {
    if (walk.nextCursor !== null) {
      for await (const page of walkPages(client, {
        path: query.path,
        body: query.body,
        cursor: walk.nextCursor,
        maxItems: plan.max === undefined ? undefined : plan.max - walk.rows,
        prefetch: plan.all || plan.max !== undefined, // a single page asks for no other
        signal,
      })) {
        const done = await walk.add(page.items, page.nextCursor, page.total);
        if (resumable && out.kind === 'file') {
          await saveState(file!, walk.checkpoint(print, out.bytes));
          checkpointed = true;
        }
        progress.update(walk);
        if (signal.aborted) throw signal.reason;
        if (done) break;
      }
    }
    await out.write(formatter.end());
    await out.finish();
    if (resumable) await removeState(file!);
    finished = true;
  } catch (err) {
    if (resumable && checkpointed) {
      (err as Error).message += `; the ${formatCount(walk.rows)} ${query.noun} written so far are kept in ${partialPath(file!)}: run the same command with --resume to continue`;
    }
    throw err;
  } finally {
    progress.stop();
    if (!finished) await out.abandon(checkpointed && resumable);
  }
  walk.report(say);
}

/** A saved state that belongs to this very export, else undefined (and why, on stderr). */
async function usableState(file: string, print: string, say: Reporter): Promise<ResumeState | undefined> {
  const state = await loadState(file);
  const partial = await AtomicFileOutput.partialSize(file);
  const why = !state
    ? `no interrupted export of ${file} to resume`
    : state.fingerprint !== print
      ? `the interrupted export of ${file} was of a different query or format`
      : partial < state.bytes
        ? `${partialPath(file)} is missing or shorter than its saved state`
        : undefined;
  if (why) {
    say.warn(`${why}; starting afresh`);
    return undefined;
  }
  say.debug(`resuming ${file} after ${formatCount(state!.formatter.rows)} rows, ${state!.pages} pages`);
  return state;
}

/** Counts, cursor and duplicate memory of one walk; what a checkpoint saves. */
class WalkState {
  rows: number;
  pages: number;
  total: Total | null;
  nextCursor: string | null | undefined;
  readonly #dedupe: BoundaryDeduper;
  readonly #started = performance.now();
  #reachedEnd = false;

  constructor(
    private readonly plan: WalkPlan,
    private readonly formatter: Formatter,
    private readonly out: Output,
    saved: ResumeState | undefined,
  ) {
    this.rows = saved?.formatter.rows ?? 0;
    this.pages = saved?.pages ?? 0;
    this.total = saved?.total ?? null;
    this.nextCursor = saved ? saved.nextCursor : plan.cursor;
    this.#dedupe = new BoundaryDeduper(saved?.recentIds);
  }

  /** Writes one page; true when the walk should stop after it. */
  async add(pageItems: Record<string, unknown>[], nextCursor: string | null, total: Total | null): Promise<boolean> {
    const { max, all } = this.plan;
    this.pages++;
    if (this.pages === 1 && total) this.total = total;
    let items = this.#dedupe.filter(pageItems);
    if (max !== undefined && this.rows + items.length > max) items = items.slice(0, max - this.rows);
    await this.out.write(this.formatter.page(items));
    this.rows += items.length;
    this.#reachedEnd = nextCursor === null;
    const done = this.#reachedEnd || (max !== undefined ? this.rows >= max : !all);
    this.nextCursor = done && (this.#reachedEnd || max !== undefined) ? null : nextCursor;
    return done;
  }

  checkpoint(print: string, bytes: number): ResumeState {
    return {
      version: 1,
      fingerprint: print,
      nextCursor: this.nextCursor ?? null,
      bytes,
      pages: this.pages,
      formatter: this.formatter.state(),
      total: this.total,
      recentIds: this.#dedupe.recentIds(),
    };
  }

  report(say: Reporter): void {
    const { plan } = this;
    const noun = plan.query.noun;
    if (plan.hints) {
      if (this.rows === 0) say.hint(`No ${noun} match.`);
      else if (this.total && plan.cursor === undefined) {
        say.hint(`Showing 1–${formatCount(this.rows)} of ${formatTotal(this.total)} ${noun}.`);
      } else say.hint(`Showing ${formatCount(this.rows)} ${noun}.`);
      if (this.nextCursor) say.hint(`Next page: add --cursor ${this.nextCursor}`);
    }
    if (this.#reachedEnd && this.total && !this.total.capped && plan.max === undefined && plan.cursor === undefined && this.rows !== this.total.count) {
      say.warn(
        `the service counted ${formatCount(this.total.count)} ${noun} but ${formatCount(this.rows)} were written: the data changed while paging`,
      );
    }
    if (!say.verbose) return; // formatting numbers loads ICU data: only when shown
    const seconds = ((performance.now() - this.#started) / 1000).toFixed(1);
    say.debug(`${formatCount(this.rows)} ${noun} in ${this.pages} pages, ${this.#dedupe.dropped} duplicates dropped, ${seconds} s`);
  }
}
