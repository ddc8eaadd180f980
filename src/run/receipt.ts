import type { Client } from '../api/client.js';
import type { Total } from '../model/total.js';
import { RunError, UsageError, exitCodeOf } from '../errors.js';
import { openDevice } from '../files/device.js';
import type { OutputDigest } from '../files/digest.js';
import { writeFileAtomic } from '../files/exclusive-file.js';
import { nodeFs, type FileSystem } from '../files/fs.js';
import { OutputClosedError } from '../files/sink.js';
import { resolveTarget, sameFile, type Target } from '../files/target.js';
import { VERSION } from '../version.js';
import type { Dimension } from './partition.js';
import type { ConnectionPlan, QueryPlan } from './plan.js';
import type { ChainReport } from './source.js';

/** What a run with --receipt FILE is asked to record, beyond what it finds out while running. */
/** A file a run writes besides its output, named by its flag (a watch's --feed). */
export interface OtherFile {
  flag: string;
  file: string;
}

export interface ReceiptPlan {
  file: string;
  /** The command's name ("export", "watch"). */
  command: string;
  /** The arguments as given, credentials in URLs removed. */
  argv: string[];
}

/** What a source tells a receipt: pages, duplicates, totals, chains, completeness. */
export interface ReceiptSource {
  readonly fetched: number;
  readonly dropped: number;
  readonly total: Total | null;
  readonly complete: boolean;
  readonly by?: Dimension;
  chains(): ChainReport[];
}

/**
 * Builds the completeness receipt of one run (export, watch) as it goes, and
 * writes it when the run ends, successful or not: the run fills in what it
 * did, the receipt adds the client's requests and retries and the error.
 */
export class ReceiptBuilder {
  readonly startedAt = new Date();
  /** Rows in the output (with those an interrupted run wrote, when resumed). */
  rows = 0;
  source?: ReceiptSource;
  /** CSV: fields that appeared after the columns were fixed, so are not in the file. */
  csvFieldsDropped?: number;
  /** What the output holds; `file` for -o, absent for stdout; `committed` once FILE is in place. */
  output?: { file?: string; committed: boolean; digest: OutputDigest };
  /** Rows and pages an interrupted run had written, when this run resumed it. */
  resumed?: { rows: number; pages: number };
  /** Fields of the command's own (watch's changes...), added as they are. */
  extra: Record<string, unknown> = {};

  constructor(
    readonly plan: ReceiptPlan,
    private readonly connection: ConnectionPlan,
    /** What the run asks; a watch knows it only once it has read its saved query. */
    public query: QueryPlan,
    private readonly parallel: number,
    private readonly client: Client,
  ) {}

  /**
   * Fails (exit 2, before any request) when FILE cannot be written, or is the
   * run's own output file, or another file it writes (`others`, by flag: a
   * watch's --feed). FILE is what -o would make of it: a device, FIFO or
   * /dev/stdout is written through (never replaced: `--receipt /dev/null` as
   * root must not put a regular file there), a link is followed.
   */
  static async check(file: string, fs: FileSystem = nodeFs, output?: Target, others: readonly OtherFile[] = []): Promise<void> {
    const target = await receiptTarget(file, fs);
    if (sameFile(target, output)) {
      throw new UsageError(`--receipt ${file} is the output file: name another file for the receipt`);
    }
    for (const other of others) {
      if (sameFile(target, await resolveTarget(other.file, false, fs, other.flag))) {
        throw new UsageError(`--receipt ${file} is the ${other.flag} file: name another file for the receipt`);
      }
    }
  }

  /** The receipt as JSON; `error` is what ended the run, if anything did. */
  build(error: unknown): Record<string, unknown> {
    const { source, output } = this;
    const base = new URL(this.connection.baseUrl);
    base.username = '';
    base.password = '';
    return {
      receipt: 1,
      tool: 'tenders',
      version: VERSION,
      command: this.plan.command,
      argv: this.plan.argv,
      query: { baseUrl: base.href, path: this.query.path, body: this.query.body },
      parallel: this.parallel,
      startedAt: this.startedAt.toISOString(),
      endedAt: new Date().toISOString(),
      requests: this.client.stats?.requests ?? null,
      retries: this.client.stats ? { ...this.client.stats.retries } : null,
      pages: source?.fetched ?? 0,
      rowsWritten: this.rows,
      duplicatesDropped: source?.dropped ?? 0,
      ...(this.csvFieldsDropped !== undefined ? { csvFieldsDropped: this.csvFieldsDropped } : {}),
      expected: source?.total ?? null,
      partitionedBy: source?.by ?? null,
      partitions: (source?.chains() ?? []).map((chain) => ({
        value: chain.value ?? null,
        expected: chain.total,
        pages: chain.pages,
        complete: chain.complete,
      })),
      complete: Boolean(source?.complete) && error === undefined,
      resumed: this.resumed ?? null,
      error: error === undefined ? null : failure(error),
      output: output
        ? { ...(output.file !== undefined ? { file: output.file } : { stdout: true }), committed: output.committed, bytes: output.digest.bytes, sha256: output.digest.sha256() }
        : null,
      ...this.extra,
    };
  }

  /**
   * Writes the receipt: into a file atomically (a temporary file created
   * exclusively, flushed, renamed onto FILE, or onto where a link at FILE
   * leads); straight into a device or FIFO.
   */
  async write(error: unknown, fs: FileSystem = nodeFs): Promise<void> {
    const json = `${JSON.stringify(this.build(error), null, 2)}\n`;
    try {
      const target = await receiptTarget(this.plan.file, fs);
      if (target.kind === 'device') {
        // Written however the run ended, so not stopped by the run's signal.
        const device = await openDevice(target.path, target, new AbortController().signal, () => {});
        await device.write(json);
        await device.finish();
      } else if (target.kind === 'file') {
        await writeFileAtomic(target.path, json, { fs, sync: true });
      }
    } catch (err) {
      throw new RunError(`the receipt: ${(err as Error).message}`, { cause: err });
    }
  }
}

/** Where --receipt FILE goes: as -o would; `-` is refused, stdout being the data's. */
async function receiptTarget(file: string, fs: FileSystem): Promise<Target> {
  if (file === '-') throw new UsageError('--receipt -: stdout carries the data; name a file, or /dev/stdout when the data goes to -o FILE');
  return resolveTarget(file, false, fs, '--receipt');
}

function failure(error: unknown): { message: string; exitCode: number } {
  if (error instanceof OutputClosedError) return { message: 'the reader of the output went away', exitCode: 0 };
  return { message: error instanceof Error ? error.message : String(error), exitCode: exitCodeOf(error) };
}
