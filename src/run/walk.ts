import type { Total } from '../model/total.js';
import { partialPath } from '../files/atomic-file.js';
import { traitsOf } from '../output/format-registry.js';
import type { Chunk, Formatter } from '../output/formatter.js';
import { OutputClosedError } from '../files/sink.js';
import type { FileSystem } from '../files/fs.js';
import { formatCount, formatCounted, formatDuration, formatSize, formatTotal } from '../model/numbers.js';
import type { Reporter } from '../output/terminal/reporter.js';
import { UnknownColumns } from '../output/unknown-columns.js';
import { shellLine } from '../output/terminal/shell.js';
import type { RunDeps, WalkPlan } from './plan.js';
import { runSession, type Session } from './session.js';
import { fingerprint, loadState, removeState, saveState, type ResumeState } from './resume-state.js';
import { openSource, type ResultSource, type SourceOptions } from './source.js';
import type { SortPaths } from '../query/sort-paths.js';

/**
 * Runs a search or export: pages from the pager, boundary duplicates dropped,
 * each page formatted and written as one chunk as it arrives. The session
 * owns the target, locks, receipt and the end; a walk into a file is, for
 * exports, resumable after a page-level checkpoint.
 */
export function runWalk(plan: WalkPlan, deps: RunDeps): Promise<void> {
  const resume = plan.output.resume;
  return runSession({ ...plan, resume }, deps, (session) => walkInto(plan, session, (opts) => openSource(opts, session.say)));
}

/** What a walk asks of its source: the service's pages (openSource) or the local copy's (local-walk.ts). */
export type OpenSource = (opts: SourceOptions & { parallel: number; sortPaths?: SortPaths }) => ResultSource;

/** A walk of `plan` in `session`, from the pages `open` gives: formatted, written, checkpointed, reported. */
export async function walkInto(plan: WalkPlan, session: Session, open: OpenSource): Promise<void> {
  const { query, output } = plan;
  const { say, fs, client, signal } = session;
  const file = session.file;
  const print = fingerprint(query, output, plan.max, plan.parallel);
  const saved = file && output.resume ? await usableState(file, print, say, fs) : undefined;
  // A compressed file is not resumable: its bytes cannot be cut at a page and continued.
  const resumable = file !== undefined && plan.resumable && traitsOf(output.format).resumable && !output.gzip;
  const out = await session.openOutput({ keepBytes: saved?.bytes });
  let checkpointed = Boolean(saved);
  session.keepPartial = resumable && checkpointed;
  // Rows a --resume keeps: those of the last checkpoint, not a page written after it.
  let kept = saved?.formatter.rows ?? 0;
  let walk: WalkState | undefined;
  let unknown: UnknownColumns | undefined;
  // Rows of an interrupted run count, but not in the rate.
  const progress = await session.showProgress({ resumedRows: saved?.formatter.rows });
  const { receipt } = session;
  try {
    const formatter = await session.createFormatter(saved?.formatter);
    if (resumable && !saved) await removeState(file, fs);
    if (resumable) session.onCommit(() => removeState(file, fs));
    const source = open(
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
    );
    walk = new WalkState(plan, formatter, out.write, source, saved);
    if (receipt) {
      receipt.source = source;
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
        session.keepPartial = true;
        kept = walk.rows;
      }
      progress.update(walk);
      if (signal.aborted) throw signal.reason;
      if (done) break;
    }
    await out.write(formatter.end());
    await session.commit();
  } catch (err) {
    // The user quit the pager before the end: say how far it got, not the range asked for.
    if (err instanceof OutputClosedError && session.io.paging) walk?.reportPagerClosed(say);
    if (resumable && checkpointed) {
      (err as Error).message += `; the ${formatCount(kept)} ${query.noun} written so far are kept in ${partialPath(file)}: run the same command with --resume to continue`;
    }
    throw err;
  }
  for (const line of unknown?.warnings(query.fieldsCommand ?? 'tenders fields') ?? []) say.warn(line);
  walk!.report(session);
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
    private readonly write: (chunk: Chunk) => Promise<void>,
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

  /** Where this page starts: known on the first page, and after a hint that said it (--shown). */
  get #before(): number | undefined {
    return this.plan.cursor === undefined ? 0 : this.plan.shown;
  }

  /** `6–10 `, or '' when the start is not known. */
  get #range(): string {
    const before = this.#before;
    if (before === undefined) return '';
    // One row is "1", not "1–1".
    return this.rows === 1 ? `${formatCount(before + 1)} ` : `${formatCount(before + 1)}–${formatCount(before + this.rows)} `;
  }

  /**
   * The pager was closed while the walk still wrote: the rows it was sent (at
   * most what the user saw), never the range the walk would have reached.
   */
  reportPagerClosed(say: Reporter): void {
    if (!this.plan.hints || this.rows === 0) return; // closed before the first page: nothing to say
    const total = this.total;
    const of = total && this.plan.cursor === undefined ? `of ${formatTotal(total)} ` : '';
    const sent = this.#range ? `${this.#range}${of}${this.plan.query.noun}` : formatCounted(this.rows, this.plan.query.noun);
    say.hint(`The pager closed after ${sent}.`);
  }

  report(session: Session): void {
    const { plan, source } = this;
    const { say } = session;
    const noun = plan.query.noun;
    for (const line of this.formatter.hints?.() ?? []) say.hint(line);
    const total = this.total;
    if (plan.hints) {
      const before = this.#before;
      const range = this.#range;
      const one = noun.replace(/s$/, '');
      if (this.rows === 0) say.hint(`No ${noun} match.`);
      else if (total && plan.cursor === undefined) {
        const alone = total.count === 1 && !total.capped;
        say.hint(alone && this.rows === 1 ? `Showing 1 ${one}.` : `Showing ${range}of ${formatTotal(total)} ${alone ? one : noun}.`);
      } else if (range && this.rows === 1) say.hint(before === 0 ? `Showing 1 ${one}.` : `Showing ${one} ${range.trim()}.`);
      else if (range) say.hint(`Showing ${range}${noun}.`);
      else say.hint(`Showing ${formatCounted(this.rows, noun)}.`);
      // After --max too, unless it ended inside a page (the next cursor would skip the rest of that page).
      if ((!this.#stopped || (!source.complete && !this.#cut)) && source.nextCursor) {
        const next = ['--cursor', source.nextCursor, ...(before === undefined ? [] : ['--shown', String(before + this.rows)])];
        // The command on a line of its own, never cut: a terminal only wraps it softly.
        if (plan.nextPageCommand) {
          say.hint('Next page:');
          say.hint(shellLine([...plan.nextPageCommand, ...next]));
        } else say.hint(`Next page: add ${next.join(' ')}`);
      }
    }
    if (plan.max === undefined && plan.cursor === undefined) session.checkCount(source, this.rows, (rows) => `${rows} were written`);
    // What the output lost or bent: in cron too, unlike its hints.
    for (const line of this.formatter.warnings?.() ?? []) say.warn(line);
    const left = this.formatter.droppedFields?.() ?? [];
    session.summary(
      [
        `${formatCounted(this.rows, noun)} in ${formatCounted(this.pages, 'pages')}`,
        `${formatCounted(source.dropped, 'duplicates')} dropped`,
        ...(left.length ? [`${left.length} new fields left out of the ${this.plan.output.format.toUpperCase()}`] : []),
      ],
      source.chains(),
    );
  }
}
