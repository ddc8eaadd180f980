import { AsyncLocalStorage } from 'node:async_hooks';
import { RunError } from '../errors.js';
import type { Store } from '../store/store.js';
import { leasedStore, type Lease } from './store-calls.js';

/** The database is not answering this request now (busy, too slow, away): 503 with Retry-After, never a 500. */
export class Unavailable extends Error {
  constructor(
    message: string,
    /** Seconds a client waits before it asks again. */
    readonly retryAfter = 1,
  ) {
    super(message);
  }
}

export interface LimitOptions {
  /** A request's database work stops after this (ms); default 5 000. */
  queryTimeoutMs?: number;
  /** At most this many requests do database work at once; default 32. */
  maxConcurrency?: number;
  /** How long a request waits for one of them before a 503 (ms); default 1 000. */
  queueWaitMs?: number;
}

export const DEFAULT_QUERY_TIMEOUT_MS = 5_000;
export const DEFAULT_MAX_CONCURRENCY = 32;

/** PostgreSQL's "canceling statement due to statement timeout". */
const QUERY_CANCELED = '57014';

/** One request's share of the database: its slot once it asks, and when its time runs out. */
interface Turn {
  slot?: Promise<void>;
  deadline?: number;
  ended: boolean;
}

/**
 * The bounds of `tenders serve` (issue 38, "Bounded"): at most
 * maxConcurrency requests read the copy at once, a request waits up to
 * queueWaitMs for its turn and its reads stop queryTimeoutMs after its first,
 * each as a 503 with Retry-After. A request takes its slot at its first read
 * and gives it back when its answer is sent or its client went: a request that
 * never reads (a health check, a 404) takes none.
 */
export class RequestLimits {
  readonly queryTimeoutMs: number;
  readonly maxConcurrency: number;
  readonly #queueWaitMs: number;
  readonly #turns = new AsyncLocalStorage<Turn>();
  #busy = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(options: LimitOptions = {}) {
    this.queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
    this.maxConcurrency = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
    this.#queueWaitMs = options.queueWaitMs ?? 1_000;
  }

  /** Runs one request's work; its slot, if it took one, is given back when `ended` resolves (the response closed). */
  request<T>(ended: Promise<unknown>, work: () => Promise<T>): Promise<T> {
    const turn: Turn = { ended: false };
    void ended.then(() => {
      turn.ended = true;
      if (turn.slot) void turn.slot.then(() => this.#release(), () => undefined);
    });
    return this.#turns.run(turn, work);
  }

  /** `store` bounded: each of its calls inside request() waits for the request's slot and keeps to its time. */
  bound(store: Store): Store {
    return leasedStore(store, async () => {
      await this.turn();
      const turn = this.#turns.getStore();
      return { store, check: () => turn && this.#check(turn), fail: (err) => this.failure(err), done: () => undefined } satisfies Lease;
    });
  }

  /**
   * Called before a read inside request(): waits for the request's slot (its first read takes
   * it) and resolves to the ms its reads have left, or throws once none are left.
   */
  async turn(): Promise<number> {
    const turn = this.#turns.getStore();
    if (turn === undefined) return this.queryTimeoutMs;
    turn.slot ??= this.#acquire();
    await turn.slot;
    turn.deadline ??= performance.now() + this.queryTimeoutMs;
    this.#check(turn);
    return turn.deadline - performance.now();
  }

  #check(turn: Turn): void {
    if (turn.deadline !== undefined && performance.now() > turn.deadline) throw this.timedOut();
  }

  /** The answer to a request whose reads ran out of time. */
  timedOut(): Unavailable {
    return new Unavailable(`the query took longer than the server allows (${this.queryTimeoutMs} ms, --query-timeout): narrow it, or ask again`);
  }

  /** What a failed read is to the client: out of time and a copy that cannot be read are 503s; the rest as thrown. */
  failure(err: unknown): Error {
    if (err instanceof Unavailable) return err;
    if ((err as { code?: unknown }).code === QUERY_CANCELED) return this.timedOut();
    // The store's RunErrors are the copy it cannot reach (PostgreSQL away, a file it cannot open); its
    // message stays on the server (it names the database), the client learns to come back.
    if (err instanceof RunError) return new Unavailable('the local copy cannot be read now', 5);
    return err as Error;
  }

  #acquire(): Promise<void> {
    if (this.#busy < this.maxConcurrency) {
      this.#busy++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const go = () => {
        clearTimeout(timer);
        this.#busy++;
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(go), 1);
        reject(new Unavailable(`the server is busy (at most ${this.maxConcurrency} requests at once): ask again`));
      }, this.#queueWaitMs);
      this.#waiting.push(go);
    });
  }

  #release(): void {
    this.#busy--;
    this.#waiting.shift()?.();
  }
}
