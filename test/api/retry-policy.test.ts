import { describe, expect, it } from 'vitest';
import { causeOfCode, decideRetry, retryAfterMs, retryDelayMs } from '../../src/api/retry-policy.js';

describe('the retry policy', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('0.5', now)).toBe(500);
    expect(retryAfterMs(['7'], now)).toBe(7000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:02 GMT', now)).toBe(2000);
    expect(retryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(' ', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });

  it('backs off exponentially with jitter, up to 30 s', () => {
    expect(retryDelayMs(1, undefined, () => 0)).toBe(250);
    expect(retryDelayMs(1, undefined, () => 1)).toBe(500);
    expect(retryDelayMs(3, undefined, () => 1)).toBe(2000);
    expect(retryDelayMs(20, undefined, () => 1)).toBe(30_000);
  });

  it('honours a Retry-After in full, however long, plus under 0.1 s of spread', () => {
    expect(retryDelayMs(1, 5000, () => 0)).toBe(5000);
    expect(retryDelayMs(1, 10 * 60_000, () => 0)).toBe(600_000);
    expect(retryDelayMs(4, 1000, () => 0.999)).toBe(1099);
  });

  it('one budget: attempts 1..N retry, attempt N+1 gives up, whatever failed', () => {
    const policy = { retries: 2, maxWaitMs: 120_000 };
    expect(decideRetry(1, policy, undefined, () => 0)).toEqual({ kind: 'retry', waitMs: 250 });
    expect(decideRetry(2, policy, 3000, () => 0)).toEqual({ kind: 'retry', waitMs: 3000 });
    expect(decideRetry(3, policy, undefined)).toEqual({ kind: 'give-up' });
    expect(decideRetry(1, { retries: 0, maxWaitMs: 120_000 }, undefined)).toEqual({ kind: 'give-up' });
  });

  it('a Retry-After beyond --max-wait ends at once, even with retries left', () => {
    const policy = { retries: 5, maxWaitMs: 120_000 };
    expect(decideRetry(1, policy, 120_000, () => 0)).toEqual({ kind: 'retry', waitMs: 120_000 });
    expect(decideRetry(1, policy, 120_001)).toEqual({ kind: 'too-long', waitMs: 120_001 });
    expect(decideRetry(6, policy, 100_000_000)).toEqual({ kind: 'too-long', waitMs: 100_000_000 });
    expect(decideRetry(1, { retries: 5, maxWaitMs: 0 }, 1000)).toEqual({ kind: 'too-long', waitMs: 1000 });
  });

  it('counts timeouts apart from other connection failures', () => {
    expect(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT'].map(causeOfCode)).toEqual([
      'timeout',
      'timeout',
      'timeout',
      'timeout',
    ]);
    expect(['ECONNRESET', 'ECONNREFUSED', 'UND_ERR_SOCKET', 'ENOTFOUND'].map(causeOfCode)).toEqual(['connection', 'connection', 'connection', 'connection']);
  });
});
