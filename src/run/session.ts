import { dirname } from 'node:path';
import { partialPath } from '../files/atomic-file.js';
import { OutputDigest } from '../files/digest.js';
import { displayOptions } from '../output/terminal/display.js';
import { formatDefinition, refuseOnTerminal } from '../output/format-registry.js';
import { createFormatter, type Chunk, type FormatOptions, type Formatter, type FormatterState } from '../output/formatter.js';
import { nodeFs, type FileSystem } from '../files/fs.js';
import { cpvVocabulary } from '../files/cpv-file.js';
import { DEFAULT_CPV_PATHS } from '../model/cpv.js';
import { acquireLock } from '../files/lock.js';
import { formatCount, formatCounted, formatTotal } from '../model/numbers.js';
import { createProgress, silent, type Progress } from '../output/terminal/progress.js';
import { createReporter, type Reporter } from '../output/terminal/reporter.js';
import { openOutput, resolveTarget, type Output, type Target } from '../files/target.js';
import type { Total } from '../model/total.js';
import type { ConnectionPlan, OutputPlan, QueryPlan, RunDeps } from './plan.js';
import { ReceiptBuilder, type OtherFile, type ReceiptPlan } from './receipt.js';
import type { ChainReport } from './source.js';

/** What a session needs to know of its run, whatever the run is (an export, a watch, a sync). */
export interface SessionPlan {
  connection: ConnectionPlan;
  /** What the receipt records as asked; a run that learns its query later sets `session.receipt.query`. */
  query: QueryPlan;
  parallel: number;
  receipt?: ReceiptPlan;
  /** The output -o names (stdout without -o); absent for a run whose product is a store commit only. */
  output?: OutputPlan;
  /** --resume: -o must name a file, and its partial file is kept. */
  resume?: boolean;
  /**
   * The run's own state (a watch's state file, a sync's database): locked
   * before the output, its directory made first (mode 700).
   */
  stateLock?: string;
  /** Files the run writes besides its output (a watch's --feed): the receipt may be none of them. */
  alsoWrites?: readonly OtherFile[];
}

/** The output of a session, opened: writes are digested for the receipt. */
export interface SessionOutput {
  readonly kind: Output['kind'];
  /** A terminal reads it. */
  readonly terminal: boolean;
  /** Bytes in the file so far (a resumed one's kept bytes included); 0 for a stream. */
  readonly bytes: number;
  write(chunk: Chunk): Promise<void>;
}

/** A step of a run's commit or abandon, in the order registered. */
type Step = () => Promise<void>;

/**
 * One run's setup and teardown, so that an orchestrator keeps only its own
 * logic: the target -o names (refused, exit 2, before any request), the
 * receipt, the locks (the run's state, then the output file), the output and
 * its formatter, the digest, the progress line, the count check and verbose
 * summary, and the end: `commit()` delivers the output and then runs the
 * commit steps (a watch's state, a resume state removed, a store
 * transaction); a run that fails or is interrupted abandons the output and
 * runs the abandon steps. The receipt is written however the run ends.
 *
 * Life cycle: runSession(plan, deps, async (session) => { ... openOutput,
 * write, ..., commit(), then reports }).
 */
export class Session {
  readonly say: Reporter;
  readonly fs: FileSystem;
  readonly started = performance.now();
  /** Keep FILE.partial when the run is abandoned (an export that checkpointed). */
  keepPartial = false;
  #out: Output | undefined;
  #digest: OutputDigest | undefined;
  #progress: Progress = silent;
  #stopProgressOnData = false;
  readonly #locks: Step[] = [];
  readonly #commits: Step[] = [];
  readonly #abandons: Step[] = [];
  #delivered = false;
  #committed = false;

  private constructor(
    readonly plan: SessionPlan,
    readonly deps: RunDeps,
    /** Undefined: the run has no output. */
    readonly target: Target | undefined,
    readonly receipt: ReceiptBuilder | undefined,
  ) {
    this.say = createReporter(deps.io, plan.connection);
    this.fs = deps.fs ?? nodeFs;
  }

  /** Decides the target and the receipt (exit 2 when unusable), then takes the locks. */
  static async open(plan: SessionPlan, deps: RunDeps): Promise<Session> {
    const fs = deps.fs ?? nodeFs;
    const target = plan.output ? await resolveTarget(plan.output.file, Boolean(plan.resume), fs) : undefined;
    if (plan.receipt) await ReceiptBuilder.check(plan.receipt.file, fs, target, plan.alsoWrites);
    const receipt = plan.receipt && new ReceiptBuilder(plan.receipt, plan.connection, plan.query, plan.parallel, deps.client);
    const session = new Session(plan, deps, target, receipt);
    try {
      if (plan.stateLock) {
        await fs.mkdir(dirname(plan.stateLock), { recursive: true, mode: 0o700 });
        await session.lock(plan.stateLock);
      }
      if (target?.kind === 'file') await session.lock(target.path, `-o ${plan.output?.file}`);
    } catch (err) {
      await session.close(err);
      throw err;
    }
    return session;
  }

  get io() {
    return this.deps.io;
  }

  get client() {
    return this.deps.client;
  }

  get signal() {
    return this.deps.signal;
  }

  /** The file -o names, when it names a file (where a resume state and partial file live). */
  get file(): string | undefined {
    return this.target?.kind === 'file' ? this.target.path : undefined;
  }

  /** Takes `path`'s lock until the session closes. */
  async lock(path: string, named?: string): Promise<void> {
    this.#locks.push(await acquireLock(path, { fs: this.fs, log: this.say.debug, named }));
  }

  /**
   * Opens the output; on resume, FILE.partial keeps its first `keepBytes`
   * bytes, which start the digest. A binary format is refused on a terminal.
   */
  async openOutput(opts: { keepBytes?: number } = {}): Promise<SessionOutput> {
    const { target, plan } = this;
    if (!target || !plan.output) throw new Error('this run has no output');
    const { io, signal } = this.deps;
    const out = await openOutput(target, { stdout: io.stdout, stdoutIsTTY: io.stdoutIsTTY, signal, keepBytes: opts.keepBytes, fs: this.fs, onWait: this.say.hint, gzip: plan.output.gzip });
    this.#out = out;
    refuseOnTerminal(formatDefinition(plan.output.format), out.terminal);
    if (this.receipt) {
      this.#digest = opts.keepBytes !== undefined ? await OutputDigest.ofPrefix(partialPath(this.file!), opts.keepBytes) : new OutputDigest();
      this.receipt.output = { file: plan.output.file, committed: false, digest: this.#digest };
    }
    // The receipt's digest is of the bytes written: a compressed file's, as sha256sum reads it.
    const compressed = 'onCompressed' in out;
    if (compressed) out.onCompressed = (bytes) => this.#digest?.update(bytes);
    const digest = compressed ? undefined : this.#digest;
    const toTerminalStdout = target.kind === 'stdout' && out.terminal;
    return {
      kind: out.kind,
      terminal: out.terminal,
      get bytes() {
        return out.kind === 'file' ? out.bytes : 0;
      },
      write: async (chunk) => {
        // The spinner would garble data on the terminal it shares.
        if (toTerminalStdout && this.#stopProgressOnData) this.stopProgress();
        await out.write(chunk);
        digest?.update(chunk);
      },
    };
  }

  /** The formatter options of this output: the plan's, and the width, colour and safety of where it goes. */
  formatOptions(): FormatOptions {
    const { output } = this.plan;
    const out = this.#out;
    if (!output || !out) throw new Error('the output is not open');
    const { format: _format, file: _file, resume: _resume, gzip: _gzip, ...options } = output;
    const { connection, query } = this.plan;
    const feedSource = { service: connection.baseUrl.href, path: query.path, body: query.body };
    return { ...options, ...displayOptions(this.deps.io, this.target?.kind === 'stdout'), terminal: out.terminal, feedSource };
  }

  /** The formatter of the plan's format for this output (a resumed one goes on from `resume`). */
  async createFormatter(resume?: FormatterState): Promise<Formatter> {
    const { format, columns, cpvPaths = DEFAULT_CPV_PATHS } = this.plan.output!;
    const formatter = await createFormatter(format, this.formatOptions(), resume);
    // A table asked for a CPV column shows the codes' names: the vocabulary is read then only.
    const named = cpvPaths.filter((path) => columns?.includes(path));
    if (format !== 'table' || named.length === 0) return formatter;
    const { withCpvNames } = await import('../output/terminal/cpv-names.js');
    return withCpvNames(formatter, cpvVocabulary(), named);
  }

  /**
   * A progress line on stderr, never with --quiet or --verbose. Over data on a
   * terminal: never, or (`untilData`) until the first chunk reaches it.
   * `resumedRows` count in the rows shown, not in the rate.
   */
  async showProgress(opts: { untilData?: boolean; resumedRows?: number } = {}): Promise<Progress> {
    const { connection, query } = this.plan;
    const overData = Boolean(this.#out?.terminal) && !opts.untilData;
    this.#stopProgressOnData = Boolean(opts.untilData);
    this.#progress = await createProgress(this.deps.io, !connection.quiet && !connection.verbose && !overData, query.noun, opts.resumedRows);
    return { update: (counts) => this.#progress.update(counts), stop: () => this.stopProgress() };
  }

  stopProgress(): void {
    this.#progress.stop();
    this.#progress = silent;
  }

  /**
   * A step to run when the session closes, however the run ends, before the
   * locks and holds taken earlier are let go: a lock of the run's own (a
   * PostgreSQL connection's), a connection, a work directory.
   */
  hold(release: Step): void {
    this.#locks.push(release);
  }

  /** A step to run once the output is delivered (in the order given): a state moved forward, a store committed. */
  onCommit(step: Step): void {
    this.#commits.push(step);
  }

  /** A step to run when the run does not commit: a temporary state or a store transaction let go. */
  onAbandon(step: Step): void {
    this.#abandons.push(step);
  }

  /** Delivers the output (stdout flushed, FILE in place), then runs the commit steps. */
  async commit(): Promise<void> {
    this.stopProgress();
    if (this.#out) {
      await this.#out.finish();
      this.#delivered = true;
      if (this.receipt?.output) this.receipt.output.committed = true;
    }
    for (const step of this.#commits) await step();
    this.#committed = true;
  }

  /**
   * After a walk to its end: the service's count against the rows the walk
   * saw (`saw` says them: "N were written"); a difference means the data
   * changed while paging.
   */
  checkCount(source: { complete: boolean; total: Total | null }, seen: number, saw: (count: string) => string): void {
    const { total } = source;
    if (!source.complete || !total || total.capped || seen === total.count) return;
    this.say.warn(`the service counted ${formatCount(total.count)} ${this.plan.query.noun} but ${saw(formatCount(seen))}: the data changed while paging`);
  }

  /** With --verbose: what the run did, its parts joined, its time added; and each chain of a --parallel walk. */
  summary(parts: readonly string[], chains: readonly ChainReport[] = []): void {
    if (!this.say.verbose) return; // formatting numbers loads ICU data: only when shown
    const seconds = ((performance.now() - this.started) / 1000).toFixed(1);
    this.say.debug(`${[...parts, `${seconds} s`].join(', ')}`);
    if (chains.length < 2) return;
    const noun = this.plan.query.noun;
    for (const chain of chains) {
      const of = chain.total ? `${formatTotal(chain.total)} ${noun} counted` : 'no count';
      this.say.debug(`  ${chain.value}: ${of}, ${formatCounted(chain.pages, 'pages')}${chain.complete ? '' : ', not finished'}`);
    }
  }

  /**
   * Ends the session: what did not commit is abandoned, the receipt written
   * (the run's own failure is the one to report; a receipt that cannot be
   * written is said besides), the locks released.
   */
  async close(error: unknown): Promise<void> {
    try {
      this.stopProgress();
      if (!this.#committed) {
        if (!this.#delivered) await this.#out?.abandon(this.keepPartial);
        for (const step of this.#abandons) await step();
      }
      if (error !== undefined) await this.receipt?.write(error, this.fs).catch((e: Error) => this.say.warn(e.message));
      else await this.receipt?.write(undefined, this.fs);
    } finally {
      for (const release of this.#locks.reverse()) await release();
    }
  }
}

/** Opens a session, runs `body` in it and closes it however the body ends. */
export async function runSession(plan: SessionPlan, deps: RunDeps, body: (session: Session) => Promise<void>): Promise<void> {
  const session = await Session.open(plan, deps);
  try {
    await body(session);
  } catch (err) {
    await session.close(err);
    throw err;
  }
  await session.close(undefined);
}
