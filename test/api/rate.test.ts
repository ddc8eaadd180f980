import { describe, expect, it } from 'vitest';
import { ASSUMED_RATE, RATE_FLOOR, RateGovernor, pace, realClock } from '../../src/api/rate.js';
import { JumpingClock, ManualClock } from '../support/manual-clock.js';

/** Takes `n` turns one after the other; the clock time of each start. */
async function starts(governor: RateGovernor, clock: { now(): number }, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    await governor.acquire();
    times.push(clock.now());
  }
  return times;
}

describe('RateGovernor', () => {
  it('without --rate and without a 429 never waits, and costs no promise', () => {
    const clock = new JumpingClock();
    const governor = new RateGovernor({ clock });
    for (let i = 0; i < 100; i++) expect(governor.acquire()).toBeUndefined();
    governor.succeeded();
    expect(clock.slept).toEqual([]);
    expect(governor.rate).toBeUndefined();
  });

  it('--rate spaces requests 1/R apart, with no burst at the start', async () => {
    const clock = new JumpingClock();
    const governor = new RateGovernor({ rate: 5, clock });
    expect(await starts(governor, clock, 5)).toEqual([0, 200, 400, 600, 800]);
  });

  it('--rate takes decimals: 0.1 is one request every 10 s', async () => {
    const clock = new JumpingClock();
    const governor = new RateGovernor({ rate: 0.1, clock });
    expect(await starts(governor, clock, 3)).toEqual([0, 10_000, 20_000]);
  });

  it('a request that comes after a quiet spell goes at once: idle time is not saved up', async () => {
    const clock = new JumpingClock();
    const governor = new RateGovernor({ rate: 2, clock });
    await governor.acquire();
    clock.t = 10_000;
    await governor.acquire();
    expect(clock.now()).toBe(10_000);
    await governor.acquire();
    expect(clock.now()).toBe(10_500);
  });

  it('chains waiting together are served first come, first served, at the pace', async () => {
    const clock = new ManualClock();
    const governor = new RateGovernor({ rate: 4, clock });
    const order: string[] = [];
    const turn = (name: string) => Promise.resolve(governor.acquire()).then(() => order.push(`${name}@${clock.now()}`));
    const [a, b, c] = [turn('a'), turn('b'), turn('c')];
    await a;
    await clock.sleeping(2); // b and c wait for their turns
    clock.advance(250);
    await b;
    clock.advance(250);
    await c;
    expect(order).toEqual(['a@0', 'b@250', 'c@500']);
  });

  it('a Retry-After pause holds every request, also one already waiting for its turn', async () => {
    const clock = new ManualClock();
    const log: string[] = [];
    const governor = new RateGovernor({ rate: 10, clock, log: (line) => log.push(line) });
    await governor.acquire();
    const waiting = governor.acquire(); // its turn is at 100 ms
    await clock.sleeping(1);
    governor.pause(2000);
    clock.advance(100);
    await clock.sleeping(1); // woke, saw the pause, sleeps again
    expect(clock.now()).toBe(100);
    clock.advance(1900);
    await waiting;
    expect(clock.now()).toBe(2000);
    expect(log).toEqual([expect.stringMatching(/^rate: the service asked for a pause: every request waits 2\.0 s, until \d\d:\d\d:\d\d UTC$/)]);
  });

  it('without --rate a pause still holds every request, and a shorter one does not shorten it', async () => {
    const clock = new JumpingClock();
    const governor = new RateGovernor({ clock });
    governor.pause(3000);
    governor.pause(1000);
    await governor.acquire();
    expect(clock.slept).toEqual([3000]);
    expect(governor.acquire()).toBeUndefined();
  });

  it('a 429 without Retry-After halves the pace, to a floor', () => {
    const log: string[] = [];
    const clock = new JumpingClock();
    const governor = new RateGovernor({ rate: 4, clock, log: (line) => log.push(line) });
    for (let i = 0; i < 8; i++) {
      clock.t += 1;
      governor.slowDown(clock.t);
    }
    expect(governor.rate).toBe(RATE_FLOOR);
    expect(log.slice(0, 2)).toEqual(['rate: 429 without Retry-After: 4.0 → 2.0 requests/s', 'rate: 429 without Retry-After: 2.0 → 1.0 requests/s']);
    expect(log.at(-1)).toBe('rate: 429 without Retry-After: 0.050 → 0.050 requests/s');
  });

  it('--rate below the floor is never raised by it', () => {
    const clock = new JumpingClock();
    const governor = new RateGovernor({ rate: 0.01, clock });
    governor.slowDown(0);
    expect(governor.rate).toBe(0.01);
  });

  it('halves once per round: 429s to requests sent before the last halving do not halve again', () => {
    const clock = new JumpingClock();
    const governor = new RateGovernor({ rate: 8, clock });
    clock.t = 1000;
    governor.slowDown(900);
    governor.slowDown(950); // in flight at the old pace
    expect(governor.rate).toBe(4);
    governor.slowDown(1000);
    expect(governor.rate).toBe(2);
  });

  it('the first request after a halving waits a whole interval at the new pace', async () => {
    const clock = new JumpingClock();
    const governor = new RateGovernor({ rate: 4, clock });
    await governor.acquire();
    governor.slowDown(0);
    await governor.acquire();
    expect(clock.now()).toBe(500);
  });

  it('climbs back additively on successes, to --rate and no further', () => {
    const log: string[] = [];
    const governor = new RateGovernor({ rate: 4, clock: new JumpingClock(), log: (line) => log.push(line) });
    governor.slowDown(0);
    log.length = 0;
    let successes = 0;
    while (governor.rate! < 4) {
      governor.succeeded();
      successes++;
    }
    expect(successes).toBe(25);
    governor.succeeded();
    expect(governor.rate).toBe(4);
    expect(log[0]).toBe('rate: recovering: 2.0 → 2.1 requests/s');
    expect(log.at(-1)).toMatch(/→ 4\.0 requests\/s$/);
    expect(log.length).toBeLessThanOrEqual(25);
  });

  it('without --rate, the first 429 halves the measured pace of the latest requests', async () => {
    const log: string[] = [];
    const clock = new JumpingClock();
    const governor = new RateGovernor({ clock, log: (line) => log.push(line) });
    for (let i = 0; i < 20; i++) {
      expect(governor.acquire()).toBeUndefined();
      clock.t += 100; // 10 requests a second
    }
    governor.slowDown(clock.t);
    expect(governor.rate).toBe(5);
    expect(log).toEqual(['rate: 429 without Retry-After: 10.0 → 5.0 requests/s']);
    for (let i = 0; i < 30; i++) governor.succeeded();
    expect(governor.rate).toBe(10); // back to the pace that drew the 429
  });

  it('without --rate and too few requests to measure, assumes a pace', () => {
    const governor = new RateGovernor({ clock: new JumpingClock() });
    governor.slowDown(0);
    expect(governor.rate).toBe(ASSUMED_RATE / 2);
  });

  it('an abort ends a wait with the signal reason', async () => {
    const clock = new ManualClock();
    const governor = new RateGovernor({ rate: 1, clock });
    await governor.acquire();
    const controller = new AbortController();
    const waiting = governor.acquire(controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });

  it('prints paces with enough digits to see a change', () => {
    expect([pace(4), pace(12.345), pace(0.5), pace(0.0625), pace(0.05)]).toEqual(['4.0', '12.3', '0.50', '0.063', '0.050']);
  });
});

describe('the real clock', () => {
  it('sleeps, and an abort ends a sleep with the signal reason, also one aborted before', async () => {
    await realClock.sleep(1);
    const controller = new AbortController();
    const sleeping = realClock.sleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(sleeping).rejects.toThrow('stop');
    await expect(realClock.sleep(1, controller.signal)).rejects.toThrow('stop');
    expect(realClock.now()).toBeGreaterThan(0);
  });
});
