import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { useSandbox } from '../support/sandbox.js';
import { SIX_PAGES_BODY, SIX_PAGES_EXPORT, SIX_PAGES_SANDBOX } from '../support/six-pages.js';
import { ndjson, runCli } from '../support/cli.js';
import { testDir } from '../support/test-context.js';

const PATH = '/api/v1/tenders/search';
const EXPORT = SIX_PAGES_EXPORT;
const BODY = SIX_PAGES_BODY;
const sb = useSandbox(SIX_PAGES_SANDBOX);
let truth: unknown[];

beforeAll(() => {
  truth = sb.truth(PATH, BODY);
  expect(truth.length).toBeGreaterThan(300);
  expect(truth.length).toBeLessThan(700);
});

describe('retryable faults: the export completes with exactly the truth', () => {
  it.each([
    ['429 with Retry-After in seconds', { rateLimitEvery: 3, retryAfter: '1' }],
    ['429 with Retry-After as an HTTP date', { rateLimitEvery: 4, retryAfter: 'date' }],
    ['500', { errorEvery: 3, errorStatus: 500 }],
    ['502', { errorEvery: 3, errorStatus: 502 }],
    ['503', { errorEvery: 2, errorStatus: 503 }],
    ['504', { errorEvery: 3, errorStatus: 504 }],
    ['dropped connections', { dropEvery: 3 }],
    ['connections cut in the middle of the body', { cutEvery: 3 }],
  ])('%s', async (_name, faults) => {
    sb.setFaults(faults);
    const before = sb.requests.length;
    const r = await runCli([...EXPORT, '-v'], sb.url);
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout)).toEqual(truth);
    expect(r.stderr).toMatch(/retry 1\/5/);
    if ('retryAfter' in faults) expect(r.stderr).toMatch(/\(Retry-After \d s\)/);
    // This run's own requests met the fault (the log is shared by the rows of the table).
    expect(sb.requests.slice(before).some((q) => q.fault)).toBe(true);
  });

  it('a stalled response: --timeout bounds the attempt and the retry succeeds', async () => {
    sb.setFaults({ stallEvery: 3, stallMs: 4000 });
    const r = await runCli([...EXPORT, '--timeout', '1000', '-v'], sb.url);
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout)).toEqual(truth);
    expect(r.stderr).toMatch(/no complete response within 1000 ms \(whole-attempt --timeout\): nothing had arrived: retry 1\/5/);
  });

  it('data shifting under the reader: repeated tenders are written once and counted', async () => {
    sb.setFaults({ repeatOverlap: true });
    const r = await runCli([...EXPORT, '-v'], sb.url);
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout)).toEqual(truth);
    expect(r.stderr).toMatch(/[1-9]\d* duplicates dropped/);
  });

  it('warns when the exported count differs from an uncapped total, exit status unchanged', async () => {
    const changing = await startSandbox({ size: 500, seed: 4, faults: { insertPerRequest: 3 } });
    const args = ['export', '-f', 'ndjson', '--sort', 'publicationDate', '--order', 'asc'];
    const r = await runCli(args, changing.url).finally(() => changing.close());
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout).length).toBeGreaterThan(500);
    expect(r.stderr).toMatch(/^tenders: warning: the service counted [\d,]+ tenders but [\d,]+ were written: the data changed while paging\n$/);
  });
});

describe('faults that are not retried fail fast and clearly', () => {
  it('a 4xx is not retried', async () => {
    sb.setFaults({ errorEvery: 2, errorStatus: 404 });
    const before = sb.requests.length;
    const r = await runCli(EXPORT, sb.url);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: the service answered 404 to POST \/api\/v1\/tenders\/search: .+\n$/);
    expect(sb.requests.length - before).toBe(2);
  });

  it('retries run out: says so after --retries attempts', async () => {
    sb.setFaults({ failAfter: 1, failStatus: 503 });
    const before = sb.requests.length;
    const r = await runCli([...EXPORT, '--retries', '2'], sb.url);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: the service answered 503 to POST \/api\/v1\/tenders\/search: still failing \(gave up after 2 retries\)\n$/);
    expect(sb.requests.length - before).toBe(4);
  });

  it('a body broken midway every time: asked for again --retries times, whole', async () => {
    sb.setFaults({ cutEvery: 1 });
    const before = sb.requests.length;
    const r = await runCli([...EXPORT, '--retries', '2'], sb.url);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: cannot get POST .*: the response broke off midway \(gave up after 2 retries\)\n$/);
    expect(sb.requests.length - before).toBe(3);
  });

  it('a service that never answers in time', async () => {
    sb.setFaults({ stallEvery: 1, stallMs: 5000 });
    const r = await runCli([...EXPORT, '--timeout', '500', '--retries', '1'], sb.url);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: cannot get POST \/api\/v1\/tenders\/search from http:\/\/127\.0\.0\.1:\d+: no complete response within 500 ms \(whole-attempt --timeout\): nothing had arrived \(gave up after 1 retry\)\n$/);
  });

  it('nothing listening, directly or at the proxy', async () => {
    const r = await runCli(['count', '--retries', '0'], 'http://127.0.0.1:9');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: cannot get .*connection refused/);
    const proxied = await runCli(['count', '--retries', '0'], sb.url, { env: { HTTP_PROXY: 'http://127.0.0.1:9' } });
    expect(proxied.code).toBe(1);
    expect(proxied.stderr).toMatch(/^tenders: cannot get POST \/api\/v1\/tenders\/search from http:\/\/127\.0\.0\.1:\d+ \(through the proxy http:\/\/127\.0\.0\.1:9, unless NO_PROXY excludes it\): /);
  });

  it.each([
    ['html', /the body is an HTML page \("502 Bad Gateway", "Bad Gateway"\), not JSON\n/], // after JSON pages: no base-URL question
    ['truncated', /the body is not JSON; it began: \{/],
    ['nopage', /it has no "page" object/],
    ['noresults', /it has no results array beside "page"/],
    ['twoarrays', /several arrays beside "page"/],
    ['huge', /\(200 to POST .*the body is larger than 16\.0 MiB/],
  ])('a malformed body (%s)', async (kind, message) => {
    sb.setFaults({ malformedEvery: 2, malformed: kind as never });
    const r = await runCli(EXPORT, sb.url);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: bad response from the service \(\d+ to POST \/api\/v1\/tenders\/search\): [^\n]+\n$/);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('an expected failure is its one tenders: line with --verbose too: the request log, no stack trace', async () => {
    sb.setFaults({ malformedEvery: 1, malformed: 'html' });
    const r = await runCli([...EXPORT, '--verbose'], sb.url);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr.trimEnd().split('\n').filter((line) => !line.startsWith('* '))).toEqual([expect.stringMatching(/^tenders: bad response from the service /)]);
  });

  it('an unexpected error\'s --verbose stack points into src/, not into the minified bundle', async () => {
    // A broken clock inside the run: nothing tenders expects, thrown from deep in its code.
    const preload = join(testDir(), 'broken-clock.cjs');
    writeFileSync(preload, "Object.defineProperty(globalThis, 'performance', { value: { now() { throw new TypeError('the clock is broken'); } } });\n");
    const r = await runCli([...EXPORT, '--verbose'], sb.url, { env: { NODE_OPTIONS: `--require ${preload}` } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: unexpected error: the clock is broken\nTypeError: the clock is broken\n/);
    const frames = r.stderr.split('\n').filter((line) => /^\s+at /.test(line));
    expect(frames.some((frame) => /\/src\/run\/session\.ts:\d+:\d+\)$/.test(frame))).toBe(true);
    expect(frames.filter((frame) => /\/dist\//.test(frame))).toEqual([]);
  });
});
