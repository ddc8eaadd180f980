import { abortableDelay } from './delay.js';

/** The slowest pace a 429 without Retry-After halves down to: one request every 20 s. */
export const RATE_FLOOR = 0.05;
/** Successes it takes to climb back from half the ceiling to the ceiling. */
export const RECOVERY_SUCCESSES = 25;
/** The pace assumed when a 429 comes before two requests could be timed. */
export const ASSUMED_RATE = 1;
/** Request starts remembered to measure the pace of a run without --rate. */
const MEASURED_STARTS = 8;

export interface Clock {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = { now: () => performance.now(), sleep: abortableDelay };

export interface RateOptions {
  /** --rate: at most this many requests per second. Absent: no limit until a 429 without Retry-After. */
  rate?: number;
  /** --verbose: one line per change of pace. */
  log?: (line: string) => void;
  clock?: Clock;
}

/**
 * The pace of one run's requests, shared by every chain that uses its client,
 * retries included. A token bucket of one token: requests start at least
 * 1/rate apart, with no bursts. Retry-After pauses every request, not only the
 * one that got it. A 429 without Retry-After halves the pace (AIMD, as TCP
 * does with its window), not below RATE_FLOOR, once per round of requests;
 * each success then adds a fiftieth of the ceiling until the pace is back
 * there. Without --rate and without such a 429 it costs one clock read.
 */
export class RateGovernor {
  /** Requests per second; undefined: unlimited. */
  #rate: number | undefined;
  /** What the pace climbs back to: --rate, or the pace that drew the first 429. */
  #ceiling: number | undefined;
  readonly #floor: number;
  readonly #clock: Clock;
  /** Earliest start of the next request at the current pace. */
  #nextAt = 0;
  #pausedUntil = 0;
  /** When the pace was last halved: 429s to requests sent before then are of the old pace. */
  #slowedAt = -Infinity;
  readonly #starts: number[] = [];
  #started = 0;

  constructor(private readonly opts: RateOptions = {}) {
    this.#rate = this.#ceiling = opts.rate;
    this.#floor = Math.min(RATE_FLOOR, opts.rate ?? RATE_FLOOR);
    this.#clock = opts.clock ?? realClock;
  }

  /** The current pace in requests per second; undefined when unlimited. */
  get rate(): number | undefined {
    return this.#rate;
  }

  now(): number {
    return this.#clock.now();
  }

  /** Undefined when a request may go at once (then nothing is awaited), else when it may go. */
  acquire(signal?: AbortSignal): Promise<void> | undefined {
    const now = this.#clock.now();
    if (this.#rate !== undefined || this.#pausedUntil > now) return this.#wait(signal);
    this.#starts[this.#started++ % MEASURED_STARTS] = now;
    return undefined;
  }

  async #wait(signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      const now = this.#clock.now();
      let at = Math.max(now, this.#pausedUntil);
      if (this.#rate !== undefined) {
        // Reserve the slot: later callers queue behind it, first come first served.
        at = Math.max(at, this.#nextAt);
        this.#nextAt = at + 1000 / this.#rate;
      }
      if (at > now) await this.#clock.sleep(at - now, signal);
      // A pause that began while this request waited holds it too.
      if (this.#pausedUntil <= this.#clock.now()) return;
    }
  }

  /** Retry-After: no request of the run starts before `ms` from now. */
  pause(ms: number): void {
    const until = this.#clock.now() + ms;
    if (until <= this.#pausedUntil) return;
    this.#pausedUntil = until;
    const wallClock = new Date(Date.now() + ms).toISOString().slice(11, 19);
    this.#say(`the service asked for a pause: every request waits ${(ms / 1000).toFixed(1)} s, until ${wallClock} UTC`);
  }

  /** A 429 without Retry-After to a request sent at `sentAt` (this clock): halve the pace. */
  slowDown(sentAt: number): void {
    if (sentAt < this.#slowedAt) return; // sent at the old pace: already answered for
    this.#slowedAt = this.#clock.now();
    const before = this.#rate ?? this.#measured();
    this.#ceiling ??= before;
    this.#rate = Math.max(this.#floor, before / 2);
    this.#nextAt = Math.max(this.#nextAt, this.#slowedAt + 1000 / this.#rate);
    this.#say(`429 without Retry-After: ${pace(before)} → ${pace(this.#rate)} requests/s`);
  }

  /** A request succeeded: climb back towards the ceiling. */
  succeeded(): void {
    const rate = this.#rate;
    const ceiling = this.#ceiling;
    if (rate === undefined || ceiling === undefined || rate >= ceiling) return;
    this.#rate = Math.min(ceiling, rate + ceiling / (2 * RECOVERY_SUCCESSES));
    if (pace(this.#rate) !== pace(rate)) this.#say(`recovering: ${pace(rate)} → ${pace(this.#rate)} requests/s`);
  }

  /** The pace of the latest requests of an unlimited run. */
  #measured(): number {
    const starts = this.#starts.slice(0, Math.min(this.#started, MEASURED_STARTS));
    if (starts.length < 2) return ASSUMED_RATE;
    const span = Math.max(...starts) - Math.min(...starts);
    return ((starts.length - 1) * 1000) / Math.max(span, 1);
  }

  #say(line: string): void {
    this.opts.log?.(`rate: ${line}`);
  }
}

/** 4.0, 0.50, 0.063: enough digits to see a change. */
export function pace(rate: number): string {
  return rate >= 1 ? rate.toFixed(1) : rate.toPrecision(2);
}
