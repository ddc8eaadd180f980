import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useSandbox } from '../support/sandbox.js';
import { SIX_PAGES_BODY, SIX_PAGES_EXPORT, SIX_PAGES_SANDBOX } from '../support/six-pages.js';
import { testDir } from '../support/test-context.js';
import { ndjson, runCli } from '../support/cli.js';

// Paging that cannot loop or hang, one retry budget, --max-wait, --rate: the built CLI against the sandbox.
const PATH = '/api/v1/tenders/search';
const EXPORT = SIX_PAGES_EXPORT;
const BODY = SIX_PAGES_BODY;
const sb = useSandbox(SIX_PAGES_SANDBOX);
let truth: unknown[];

beforeAll(() => {
  truth = sb.truth(PATH, BODY);
});

/** This run's requests, grouped by the page they asked for (its cursor). */
function attemptsPerPage(from: number): number[] {
  const counts = new Map<string, number>();
  for (const q of sb.requests.slice(from)) {
    const cursor = String((q.body as { cursor?: string }).cursor ?? '');
    counts.set(cursor, (counts.get(cursor) ?? 0) + 1);
  }
  return [...counts.values()];
}

describe('--retries N: at most N+1 requests per page, whatever fails', () => {
  it('503s and bodies cut midway, alternating: --retries 2 sends 3 requests, then gives up', async () => {
    sb.setFaults({ errorEvery: 1, errorStatus: 503, cutEvery: 2 });
    const before = sb.requests.length;
    const r = await runCli([...EXPORT, '--retries', '2'], sb.url);
    expect(r.code).toBe(1);
    expect(sb.requests.slice(before).map((q) => q.fault)).toEqual(['error', 'cut', 'error']);
    expect(r.stderr).toMatch(/^tenders: the service answered 503 to POST \/api\/v1\/tenders\/search: still failing \(gave up after 2 retries\)\n$/);
  });

  it('a mix that clears within the budget completes, never over N+1 requests a page', async () => {
    sb.setFaults({ errorEvery: 2, errorStatus: 503, cutEvery: 3 });
    const before = sb.requests.length;
    const r = await runCli([...EXPORT, '--retries', '3', '--max', '300'], sb.url);
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout)).toEqual(truth.slice(0, 300));
    expect(attemptsPerPage(before)).toEqual([1, 4, 2]);
  });
});

describe('--max-wait: a Retry-After beyond reason', () => {
  it('ends the run at once with exit 1, saying when the service takes requests again', async () => {
    sb.setFaults({ rateLimitEvery: 2, retryAfter: '100000' });
    const before = sb.requests.length;
    const r = await runCli(EXPORT, sb.url);
    expect(r.code).toBe(1);
    expect(sb.requests.length - before).toBe(2);
    expect(r.stderr).toMatch(
      /^tenders: the service answered 429 to POST \/api\/v1\/tenders\/search and accepts requests again at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, in 100000 s: longer than --max-wait 120 s, so the run stops here \(run it again after that time, or raise --max-wait\)\n$/,
    );
  });

  it('with -o the export stays resumable, and --resume finishes it', async () => {
    const file = join(testDir(), 'waited.ndjson');
    sb.setFaults({ rateLimitEvery: 3, retryAfter: '100000' });
    const stopped = await runCli([...EXPORT, '-o', file], sb.url);
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toMatch(/--max-wait\); the 200 tenders written so far are kept in .*waited\.ndjson\.partial: run the same command with --resume to continue\n$/);
    expect((await readdir(testDir())).filter((name) => name.startsWith('waited'))).toEqual(['waited.ndjson.partial', 'waited.ndjson.resume.json']);
    sb.setFaults({});
    const resumed = await runCli([...EXPORT, '-o', file, '--resume'], sb.url);
    expect(resumed.code).toBe(0);
    expect(ndjson(await readFile(file, 'utf8'))).toEqual(truth);
  });

  it('--max-wait raised: the same Retry-After is waited out', async () => {
    sb.setFaults({ rateLimitEvery: 4, retryAfter: '1' });
    const r = await runCli([...EXPORT, '--max-wait', '0', '-v'], sb.url);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/in 1 s: longer than --max-wait 0 s/);
    const waited = await runCli([...EXPORT, '--max-wait', '1', '-v'], sb.url);
    expect(waited.code).toBe(0);
    expect(waited.stderr).toMatch(/429: retry 1\/5 in 10\d\d ms \(Retry-After 1 s\)/);
  });
});

describe('a service paging in a loop', () => {
  it('ends with exit 1 naming the pages, instead of paging forever', async () => {
    sb.setFaults({ cursorCycleAt: 3 });
    const before = sb.requests.length;
    const r = await runCli(EXPORT, sb.url);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'tenders: the service sent a cursor already used on POST /api/v1/tenders/search: page 3 points back to page 3 (a paging loop), so the walk stops after page 2\n',
    );
    expect(sb.requests.length - before).toBe(3);
    expect(ndjson(r.stdout)).toEqual(truth.slice(0, 200));
  });

  it('with -o the export stays resumable, and --resume finishes it once the service pages right', async () => {
    const file = join(testDir(), 'loop.ndjson');
    sb.setFaults({ cursorCycleAt: 4 });
    const stopped = await runCli([...EXPORT, '-o', file], sb.url);
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toMatch(/page 4 points back to page 4 .*; the 300 tenders written so far are kept in .*loop\.ndjson\.partial: run the same command with --resume/);
    sb.setFaults({});
    const resumed = await runCli([...EXPORT, '-o', file, '--resume'], sb.url);
    expect(resumed.code).toBe(0);
    expect(ndjson(await readFile(file, 'utf8'))).toEqual(truth);
  });
});

describe('--timeout bounds a whole attempt', () => {
  it('a body trickling in (never a long gap) is cut, said as such, and retried', async () => {
    sb.setFaults({ trickleMs: 50, trickleBytes: 8 });
    const before = sb.requests.length;
    const r = await runCli([...EXPORT, '--timeout', '1000', '--retries', '1'], sb.url);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^tenders: cannot get POST \/api\/v1\/tenders\/search from http:\/\/127\.0\.0\.1:\d+: no complete response within 1000 ms \(whole-attempt --timeout\): the body was still arriving \(gave up after 1 retry\)\n$/,
    );
    await sb.idle();
    expect(sb.requests.slice(before).map((q) => q.clientClosed)).toEqual([true, true]);
  });
});

describe('--rate', () => {
  /** Arrival times of this run's requests, in ms. */
  const times = (from: number) => sb.requests.slice(from).map((q) => q.t);

  it('--rate 5: ten requests take at least 1.4 s (1.8 s at the pace)', async () => {
    const before = sb.requests.length;
    const r = await runCli([...EXPORT, '-n', '10', '--max', '100', '--rate', '5'], sb.url);
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout)).toEqual(truth.slice(0, 100));
    const t = times(before);
    expect(t).toHaveLength(10);
    // 9 gaps of 200 ms are 1.8 s; one arrival's gap can look shorter when the one before it was late.
    expect(t.at(-1)! - t[0]!).toBeGreaterThanOrEqual(1400);
  });

  it('a 429 without Retry-After halves the pace, and --verbose says so', async () => {
    sb.setFaults({ rateLimitEvery: 3, retryAfter: 'none' });
    const r = await runCli([...EXPORT, '--max', '300', '--rate', '4', '-v'], sb.url);
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout)).toEqual(truth.slice(0, 300));
    expect(r.stderr).toContain('* rate: 429 without Retry-After: 4.0 → 2.0 requests/s\n');
    expect(r.stderr).toContain('* rate: recovering: 2.0 → 2.1 requests/s\n');
  });

  it('without --rate, the first such 429 halves the pace the run had', async () => {
    sb.setFaults({ rateLimitEvery: 4, retryAfter: 'none' });
    const r = await runCli([...EXPORT, '-v'], sb.url);
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout)).toEqual(truth);
    expect(r.stderr).toMatch(/\* rate: 429 without Retry-After: [\d.]+ → [\d.]+ requests\/s\n/);
  });

  it('a 429 with Retry-After pauses every request of a --parallel run, not only the one that got it', async () => {
    // count --by: 24 independent requests, 3 at a time, answers 150 ms away.
    const countries = ['DEU', 'FRA', 'ITA', 'ESP', 'POL', 'NLD', 'BEL', 'AUT', 'SWE', 'DNK', 'FIN', 'PRT'];
    const args = ['count', '--by', 'country', '-f', 'ndjson', '--parallel', '3', '-c', [...countries, ...countries.map((c) => c.slice(0, 2) + 'X')].join(',')];
    sb.setFaults({ rateLimitEvery: 8, retryAfter: '1', latencyMs: 150 });
    const before = sb.requests.length;
    const r = await runCli(args, sb.url);
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout)).toHaveLength(24);
    const log = sb.requests.slice(before);
    const limited = log.find((q) => q.fault === 'rateLimit')!;
    // Requests sent before the 429's answer came back (150 ms later) still arrive; then none until the pause ends.
    expect(log.filter((q) => q.t > limited.t + 400 && q.t < limited.t + 950)).toEqual([]);
    expect(log.filter((q) => q.t >= limited.t + 950).length).toBeGreaterThan(3);
  });

  it('a bad --rate is a usage error before any request', async () => {
    const before = sb.requests.length;
    const r = await runCli([...EXPORT, '--rate', 'lots'], sb.url);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tenders: --rate takes requests per second/);
    expect(sb.requests.length).toBe(before);
  });
});
