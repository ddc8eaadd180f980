import { Worker } from 'node:worker_threads';
import { BadRequest, type ApiResponse } from '../contract/response.js';
import { RunError, UsageError } from '../errors.js';
import { isPagePath } from '../web/web-handler.js';
import type { WebRequest, WebResponse } from '../web/web-request.js';
import type { AnswerContext, Answers } from './answers.js';
import { Unavailable, type RequestLimits } from './request-limits.js';

/** What a reading thread starts with (workerData): the SQLite copy's path and the answers' context. */
export interface ThreadInit {
  path: string;
  context: AnswerContext;
}

/** One answer asked of a thread; a page's query travels as its text (URLSearchParams cannot be sent). */
export interface Asked {
  id: number;
  method: Exclude<keyof Answers, 'close'>;
  args: unknown[];
}

/** An error as it crosses between threads: its class by name, its message, a 503's Retry-After. */
export interface SentError {
  kind: 'BadRequest' | 'UsageError' | 'RunError' | 'Unavailable' | 'Error';
  message: string;
  retryAfter?: number;
}

export function sendError(err: unknown): SentError {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof Unavailable) return { kind: 'Unavailable', message, retryAfter: err.retryAfter };
  if (err instanceof BadRequest) return { kind: 'BadRequest', message };
  if (err instanceof UsageError) return { kind: 'UsageError', message };
  if (err instanceof RunError) return { kind: 'RunError', message };
  return { kind: 'Error', message };
}

function receiveError(sent: SentError): Error {
  if (sent.kind === 'Unavailable') return new Unavailable(sent.message, sent.retryAfter);
  if (sent.kind === 'BadRequest') return new BadRequest(sent.message);
  if (sent.kind === 'UsageError') return new UsageError(sent.message);
  if (sent.kind === 'RunError') return new RunError(sent.message);
  return new Error(sent.message);
}

interface Job {
  asked: Asked;
  resolve(answer: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

interface Thread {
  worker: Worker;
  job?: Job;
  /** It answered once: it loads and reads (one that fails as it starts is not started again and again). */
  answered?: true;
}

/**
 * The answers of a SQLite copy, each made whole on one of a few threads of
 * their own (answer-thread.ts), each with its own read-only connection: one
 * request's reads are one call there, one snapshot, and the server's own
 * thread only takes requests and sends answers. better-sqlite3 cannot stop a
 * statement, so a request past its time is answered 503 from here at once and
 * its thread is ended and replaced: the statement still runs to its end
 * (V8 stops the thread only when it is back from SQLite), holding a core and
 * the snapshot it reads until then (docs/serve.md, Limits).
 */
export class AnswerPool implements Answers {
  readonly #threads: Thread[] = [];
  readonly #idle: Thread[] = [];
  readonly #queue: Job[] = [];
  #ids = 0;
  #closed = false;

  constructor(
    private readonly file: string,
    private readonly init: ThreadInit,
    size: number,
    private readonly limits: RequestLimits,
  ) {
    for (let i = 0; i < size; i++) this.#start();
  }

  tenders(body: unknown, orgId?: string): Promise<ApiResponse> {
    return this.#ask('tenders', [body, orgId]);
  }

  organisations(body: unknown): Promise<ApiResponse> {
    return this.#ask('organisations', [body]);
  }

  changes(body: unknown): Promise<ApiResponse> {
    return this.#ask('changes', [body]);
  }

  story(id: string): Promise<ApiResponse> {
    return this.#ask('story', [id]);
  }

  syncs(origin: string | undefined): Promise<ApiResponse> {
    return this.#ask('syncs', [origin]);
  }

  ready(): Promise<ApiResponse> {
    return this.#ask('ready', []);
  }

  async page(request: WebRequest): Promise<WebResponse | undefined> {
    // The API's paths are not the page's: known here, without a trip to a thread.
    if (!isPagePath(request.path)) return undefined;
    return this.#ask('page', [{ ...request, query: request.query.toString() }]);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#threads.map((t) => t.worker.terminate()));
  }

  async #ask<T>(method: Asked['method'], args: unknown[]): Promise<T> {
    const left = await this.limits.turn();
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        asked: { id: ++this.#ids, method, args },
        resolve: resolve as (answer: unknown) => void,
        reject,
        timer: setTimeout(() => this.#outOfTime(job), left),
      };
      this.#queue.push(job);
      this.#next();
    });
  }

  #next(): void {
    while (this.#idle.length > 0 && this.#queue.length > 0) {
      const thread = this.#idle.pop()!;
      thread.job = this.#queue.shift()!;
      thread.worker.postMessage(thread.job.asked);
    }
  }

  #start(): void {
    const thread: Thread = { worker: new Worker(this.file, { workerData: this.init }) };
    thread.worker.on('message', ({ id, answer, error }: { id: number; answer?: unknown; error?: SentError }) => {
      const job = thread.job;
      if (job?.asked.id !== id) return;
      thread.answered = true;
      this.#settled(thread, job);
      if (error) job.reject(this.limits.failure(receiveError(error)));
      else job.resolve(answer);
    });
    // A thread that failed (it could not load, it ran out of memory) is replaced; its request is a 500.
    thread.worker.on('error', (err) => this.#lost(thread, err));
    thread.worker.on('exit', () => this.#lost(thread, new Error('a reading thread ended')));
    this.#threads.push(thread);
    this.#idle.push(thread);
  }

  #settled(thread: Thread, job: Job): void {
    clearTimeout(job.timer);
    thread.job = undefined;
    this.#idle.push(thread);
    this.#next();
  }

  /** The job's time ran out: answered 503 now; a thread that runs it is ended and another started. */
  #outOfTime(job: Job): void {
    const queued = this.#queue.indexOf(job);
    if (queued >= 0) this.#queue.splice(queued, 1);
    const thread = this.#threads.find((t) => t.job === job);
    job.reject(this.limits.timedOut());
    if (thread) {
      thread.job = undefined;
      this.#drop(thread, true);
      // It ends when its statement does; the process need not wait for that to exit.
      thread.worker.unref();
      void thread.worker.terminate();
    }
  }

  #lost(thread: Thread, err: Error): void {
    if (!this.#threads.includes(thread)) return;
    const job = thread.job;
    this.#drop(thread, thread.answered === true);
    if (job) {
      clearTimeout(job.timer);
      job.reject(err);
    }
  }

  /** Takes `thread` out of the pool, and starts one in its place when `restart` (unless the pool is closing). */
  #drop(thread: Thread, restart: boolean): void {
    this.#threads.splice(this.#threads.indexOf(thread), 1);
    const idle = this.#idle.indexOf(thread);
    if (idle >= 0) this.#idle.splice(idle, 1);
    if (this.#closed || !restart) return;
    this.#start();
    this.#next();
  }
}
