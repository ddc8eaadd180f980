import { BoundaryDeduper } from './dedupe.js';
import type { Total } from '../api/page.js';
import { walkPages } from '../api/pager.js';
import { partialPath } from '../output/atomic-file.js';
import { nodeFs, type FileSystem } from '../output/fs.js';
import { acquireLock } from '../output/lock.js';
import { openOutput, resolveTarget, type Output, type Target } from '../output/target.js';
import { createFormatter, type Formatter } from '../output/formatter.js';
import { formatCount, formatTotal } from '../output/numbers.js';
import { createProgress } from '../output/progress.js';
import { createReporter, type Reporter } from '../output/reporter.js';
import type { RunDeps, WalkPlan } from './plan.js';
import { fingerprint, loadState, removeState, saveState, type ResumeState } from './resume-state.js';

const TABLE_FALLBACK_WIDTH = 120;

/**
 * Runs a search or export: pages from the pager, boundary duplicates dropped,
 * each page formatted and written as one chunk as it arrives. What -o names is
 * decided (and refused, exit 2) before any request; a file is written
 * atomically by one process at a time (a lock beside it) and, for exports, is
 * resumable after a page-level checkpoint.
 */
export async function runWalk(plan: WalkPlan, deps: RunDeps): Promise<void> {
  const fs = deps.fs ?? nodeFs;
  const say = createReporter(deps.io, plan.connection);
  const target = await resolveTarget(plan.output.file, plan.output.resume, fs);
  const release = target.kind === 'file' ? await acquireLock(target.path, { fs, log: say.debug }) : undefined;
  try {
    await walkInto(target, plan, deps, say, fs);
  } finally {
    await release?.();
  }
}

async function walkInto(target: Target, plan: WalkPlan, { io, client, signal }: RunDeps, say: Reporter, fs: FileSystem): Promise<void> {
  const { connection, query, output } = plan;
  const file = target.kind === 'file' ? target.path : undefined;
  const toStdout = target.kind === 'stdout';
  const print = fingerprint(query, output, plan.max);
  const saved = file && output.resume ? await usableState(file, print, say, fs) : undefined;
  const resumable = file !== undefined && plan.resumable;
  const out = await openOutput(target, { stdout: io.stdout, stdoutIsTTY: io.stdoutIsTTY, signal, keepBytes: saved?.bytes, fs });
  let checkpointed = Boolean(saved);
  // Rows a --resume keeps: those of the last checkpoint, not a page written after it.
  let kept = saved?.formatter.rows ?? 0;
  let finished = false;
  let walk: WalkState | undefined;
  const progress = await createProgress(io, !connection.quiet && !connection.verbose && !(toStdout && io.stdoutIsTTY), query.noun);
  try {
    const formatter = await createFormatter(
      output.format,
      {
        columns: output.columns,
        defaultColumns: output.defaultColumns,
        header: output.header,
        excelSafe: output.excelSafe,
        width: (toStdout && io.stdoutWidth()) || TABLE_FALLBACK_WIDTH,
        color: toStdout && io.colorStdout(),
        terminal: out.terminal,
      },
      saved?.formatter,
    );
    if (resumable && !saved) await removeState(file, fs);
    walk = new WalkState(plan, formatter, out, saved);
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
          await saveState(file, walk.checkpoint(print, out.bytes), fs);
          checkpointed = true;
          kept = walk.rows;
        }
        progress.update(walk);
        if (signal.aborted) throw signal.reason;
        if (done) break;
      }
    }
    await out.write(formatter.end());
    await out.finish();
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
  walk.report(say);
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
