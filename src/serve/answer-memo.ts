/**
 * Whole answers kept until the copy changes (`--cache-mb`, `--cache-ttl`):
 * a team's dashboard, calendar clients and the page ask the same questions
 * again and again, and between two syncs the copy gives the same answers.
 * Each answer is kept under the copy's generation (Store.generation) read
 * before it was made; a request that reads another generation drops them all.
 * Answers older than the time limit are made again, because some depend on
 * the clock as well as on the copy (`publishedFrom: "7d"`, the page's "in 5
 * days"). Only 200s with a body in one piece are kept; requests for the same
 * answer while it is being made wait for that one.
 */

export interface MemoOptions {
  /** At most this many bytes of answers (their bodies); 0 keeps none. */
  maxBytes: number;
  /** An answer is made again after this long (ms). */
  ttlMs: number;
}

export const DEFAULT_CACHE_MB = 64;
export const DEFAULT_CACHE_TTL_MS = 60_000;

/** An answer kept: what matters of it here is its status and its body. */
export interface Keepable {
  status: number;
  body: unknown;
}

interface Entry<T> {
  answer: Promise<T>;
  made: number;
  bytes: number;
}

export class AnswerMemo {
  readonly #entries = new Map<string, Entry<Keepable>>();
  #generation: string | undefined;
  #bytes = 0;

  constructor(
    private readonly options: MemoOptions,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  get enabled(): boolean {
    return this.options.maxBytes > 0;
  }

  /** The bytes of the answers kept now (for tests and the bench). */
  get bytes(): number {
    return this.#bytes;
  }

  /** The answer for `key` in `generation`: kept, being made, or made now by `make`. */
  answer<T extends Keepable>(generation: string, key: string, make: () => Promise<T>): Promise<T> {
    if (!this.enabled) return make();
    if (generation !== this.#generation) this.#clear(generation);
    const now = this.clock();
    const kept = this.#entries.get(key);
    if (kept && now - kept.made <= this.options.ttlMs) {
      // Most recently used last: the first entries are the ones to drop.
      this.#entries.delete(key);
      this.#entries.set(key, kept);
      // A key names one kind of answer (its method and path), so what is kept under it is a T.
      return kept.answer as Promise<T>;
    }
    if (kept) this.#drop(key, kept);
    const entry: Entry<Keepable> = { answer: make(), made: now, bytes: 0 };
    this.#entries.set(key, entry);
    entry.answer.then(
      (answer) => this.#settle(key, entry, answer),
      () => this.#drop(key, entry),
    );
    return entry.answer as Promise<T>;
  }

  #settle(key: string, entry: Entry<Keepable>, answer: Keepable): void {
    if (this.#entries.get(key) !== entry) return; // dropped meanwhile (a new generation)
    const bytes = answer.status === 200 && typeof answer.body === 'string' ? Buffer.byteLength(answer.body) + key.length : undefined;
    // One answer may take at most an eighth of the room: a few huge answers would push out every other.
    if (bytes === undefined || bytes > this.options.maxBytes / 8) {
      this.#drop(key, entry);
      return;
    }
    entry.bytes = bytes;
    this.#bytes += bytes;
    for (const [oldKey, old] of this.#entries) {
      if (this.#bytes <= this.options.maxBytes) break;
      this.#drop(oldKey, old);
    }
  }

  #drop(key: string, entry: Entry<Keepable>): void {
    if (this.#entries.get(key) !== entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  #clear(generation: string): void {
    this.#entries.clear();
    this.#bytes = 0;
    this.#generation = generation;
  }
}

/**
 * `read` shared by the requests that ask at once, never older than the ask:
 * a request that asks while a read is running waits for the next one, which
 * starts when that ends and answers every request that asked meanwhile. At
 * most two reads are under way whatever the number of requests (a PostgreSQL
 * copy's generation is a round trip each), and a sync committed before a
 * request asked is seen by its answer.
 */
export function coalescedReads<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let next: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const current = read().finally(() => {
      if (running === current) running = undefined;
    });
    running = current;
    return current;
  };
  return () => {
    if (running === undefined) return start();
    next ??= running.then(
      () => undefined,
      () => undefined,
    ).then(() => {
      next = undefined;
      return start();
    });
    return next;
  };
}
