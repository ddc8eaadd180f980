import type { Clock } from '../../src/api/rate.js';

interface Sleeper {
  at: number;
  ms: number;
  resolve(): void;
}

/**
 * A clock that moves only when the test says so: sleeps wait for `advance`,
 * and the test can wait for a number of sleepers instead of guessing times.
 */
export class ManualClock implements Clock {
  t = 0;
  /** Every sleep asked for, in order, as milliseconds. */
  readonly slept: number[] = [];
  readonly #sleepers: Sleeper[] = [];
  readonly #watchers: (() => void)[] = [];

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      this.slept.push(ms);
      this.#sleepers.push({ at: this.t + ms, ms, resolve });
      for (const watch of this.#watchers.splice(0)) watch();
    });
  }

  /** How many sleeps are waiting now. */
  get waiting(): number {
    return this.#sleepers.length;
  }

  /** Resolves once at least `n` sleeps are waiting. */
  async sleeping(n: number): Promise<void> {
    while (this.#sleepers.length < n) await new Promise<void>((resolve) => this.#watchers.push(resolve));
  }

  /** Moves time on by `ms`, waking the sleeps that are due, earliest first. */
  advance(ms: number): void {
    this.t += ms;
    this.#sleepers.sort((a, b) => a.at - b.at);
    while (this.#sleepers.length > 0 && this.#sleepers[0]!.at <= this.t) this.#sleepers.shift()!.resolve();
  }
}

/** A clock whose sleeps pass at once, moving time on by what they asked for. */
export class JumpingClock implements Clock {
  t = 0;
  readonly slept: number[] = [];

  now(): number {
    return this.t;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    this.slept.push(ms);
    this.t += ms;
  }
}
