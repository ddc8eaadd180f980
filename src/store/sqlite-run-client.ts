/**
 * A SQLite sync run as the walk sees it (SyncRun), done by a RunHost on a
 * thread of its own: each page is made into rows here, where the parsed
 * tenders are, and sent on; the walk goes on to the next page while the other
 * thread stages and compares this one. At most WINDOW pages are on their way
 * (memory stays bounded, whatever the size of the sync); a page the run could
 * not take fails the next call.
 */

import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { receiveError, receiveInit, RunHost, sendInit, type RunInit, type RunReply, type RunRequest, type SentError } from './sqlite-run-host.js';
import { stagedPage } from './sqlite-rows.js';
import type { RunFacts, RunReceipt, SyncRun } from './store.js';

/**
 * Pages sent and not yet staged, at most: the run's thread keeps up once it runs, but it takes
 * about 90 ms to start, while the walk fetches 30-40 pages (16 made the walk wait 20-45 ms for
 * it; a first sync's peak memory is the same either way, measured at 50 000 and 200 000). A run
 * whose thread falls behind (a slow disk) holds up to 64 pages' rows here and there.
 */
const WINDOW = 64;

declare const __TENDERS_SQLITE_WORKER__: string | null;

/**
 * The file a run's thread starts from: dist/sqlite-worker.cjs beside the
 * bundle. null where src/ runs as it is (vitest), whose runs are hosted in
 * the calling thread unless a test names the built file (hostRunsIn).
 */
let workerFile: string | null = __TENDERS_SQLITE_WORKER__ && join(__dirname, __TENDERS_SQLITE_WORKER__);

/** For tests: host runs in a thread started from `file`, or (null) in the calling thread. */
export function hostRunsIn(file: string | null): void {
  workerFile = file;
}

interface RunChannel {
  request(request: RunRequest): Promise<RunReply>;
  /** Stops the thread if the run's end did not. */
  close(): Promise<void>;
}

export class SqliteRunClient implements SyncRun {
  readonly baseline: boolean;
  readonly #channel: RunChannel;
  readonly #release: () => Promise<void>;
  readonly #query: RunInit['sync']['query'];
  readonly #cpvPaths: readonly string[];
  /** Pages on their way, oldest first. */
  readonly #sending: Promise<void>[] = [];
  /** The first page the run could not take. */
  #failed: unknown;
  #ended = false;
  /** The run's interruption (OpenOptions.signal), and what tells the run's thread of it. */
  readonly #signal: AbortSignal | undefined;
  readonly #interrupt = new Int32Array(new SharedArrayBuffer(4));
  readonly #interrupted = () => Atomics.store(this.#interrupt, 0, 1);

  /** Starts the run's host; `release` gives the sync's lock back when the run ends. */
  constructor(init: RunInit, release: () => Promise<void>, signal?: AbortSignal) {
    this.baseline = init.baseline;
    this.#release = release;
    this.#query = init.sync.query;
    this.#cpvPaths = init.cpvPaths;
    this.#signal = signal;
    // The run's thread may be waiting inside SQLite for another writer, where no message reaches it: it looks at this flag.
    if (signal?.aborted) this.#interrupted();
    else signal?.addEventListener('abort', this.#interrupted, { once: true });
    const hosted = { ...init, interrupt: this.#interrupt };
    this.#channel = workerFile === null ? threadChannel(hosted) : workerChannel(workerFile, hosted);
  }

  async known(ids: readonly string[]): Promise<Set<string>> {
    this.#live();
    return new Set((await this.#channel.request({ op: 'known', ids })) as string[]);
  }

  async add(tenders: readonly Record<string, unknown>[]): Promise<void> {
    this.#live();
    const sent = this.#channel.request({ op: 'stage', page: stagedPage(tenders, this.#cpvPaths) }).then(
      () => undefined,
      (err: unknown) => void (this.#failed ??= err),
    );
    this.#sending.push(sent);
    if (this.#sending.length >= WINDOW) await this.#sending.shift();
    if (this.#failed) throw this.#failed;
  }

  async commit(facts: RunFacts): Promise<RunReceipt> {
    this.#live();
    await Promise.all(this.#sending.splice(0));
    // A page the run did not take fails a complete run, which goes on: its caller ends it with its receipt
    // (an incomplete commit) or aborts it.
    if (this.#failed && facts.complete) throw this.#failed;
    try {
      const receipt = (await this.#channel.request({ op: 'commit', facts })) as RunReceipt;
      // The query as the sync has it, every digit of a big number kept (see sendInit).
      return { ...receipt, query: this.#query };
    } catch (err) {
      // Stopped by the interruption (nothing written): reported as the interruption, not as a failure to write.
      throw this.#signal?.aborted && facts.complete ? this.#signal.reason : err;
    } finally {
      await this.#end();
    }
  }

  async abort(): Promise<void> {
    if (this.#ended) return;
    await Promise.all(this.#sending.splice(0));
    await this.#channel.request({ op: 'abort' }).catch(() => undefined);
    await this.#end();
  }

  async #end(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    this.#signal?.removeEventListener('abort', this.#interrupted);
    await this.#channel.close();
    await this.#release();
  }

  #live(): void {
    if (this.#ended) throw new Error('this sync run has ended');
  }
}

function threadChannel(init: RunInit): RunChannel {
  // What the run's own thread is given, the same way.
  const host = new RunHost(receiveInit(sendInit(init)));
  return {
    request: async (request) => host.handle(request),
    close: async () => undefined,
  };
}

/** The run's thread: node:worker_threads (and the streams it loads, a tenth of `show`'s start-up) loaded for a run only, not for a read of the copy. */
function workerChannel(file: string, init: RunInit): RunChannel {
  const started = import('node:worker_threads').then(({ Worker }) => startedChannel(new Worker(file, { workerData: sendInit(init) })));
  // Requests wait for it in the order they came.
  return {
    request: async (request) => (await started).request(request),
    close: async () => (await started).close(),
  };
}

function startedChannel(worker: Worker): RunChannel {
  const pending = new Map<number, { resolve: (reply: RunReply) => void; reject: (err: unknown) => void }>();
  let next = 0;
  let stopped: Error | undefined;
  const stop = (err: Error) => {
    stopped ??= err;
    for (const { reject } of pending.values()) reject(stopped);
    pending.clear();
  };
  worker.on('message', ({ id, reply, error }: { id: number; reply?: RunReply; error?: SentError }) => {
    const waiting = pending.get(id);
    pending.delete(id);
    if (error) waiting?.reject(receiveError(error));
    else waiting?.resolve(reply);
  });
  worker.on('error', stop);
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      stop(new Error("the sync's database thread stopped"));
      resolve();
    }),
  );
  return {
    request: (request) =>
      new Promise<RunReply>((resolve, reject) => {
        if (stopped) return reject(stopped);
        const id = ++next;
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, request });
      }),
    close: async () => {
      if (!stopped) await worker.terminate();
      await exited;
    },
  };
}
