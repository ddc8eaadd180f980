import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, type ClientOptions } from '../../src/api/client.js';
import { BadResponseError, InvalidCursorError, NetworkError, RetryAfterTooLongError, ServiceError } from '../../src/api/errors.js';
import type { Clock } from '../../src/api/rate.js';
import { JumpingClock, ManualClock } from '../support/manual-clock.js';
import { cut, json, silence, startScripted, trickle, type ScriptedServer } from '../support/scripted-server.js';

const ORIGIN = 'http://service.test';
const PATH = '/api/v1/tenders/search';
const PAGE = { tenders: [{ id: 'T-1' }], page: { nextCursor: null, total: null } };

type Reply = { status: number; body?: unknown; raw?: string; headers?: Record<string, string> } | { error: string };

/** A client over a MockAgent answering the given replies in order; what it logged and when it asked. */
function mocked<C extends Clock = JumpingClock>(replies: Reply[], opts: Partial<ClientOptions> & { clock?: C } = {}) {
  const mock = new MockAgent();
  mock.disableNetConnect();
  const clock = (opts.clock ?? new JumpingClock()) as C;
  const sentAt: number[] = [];
  const pool = mock.get(ORIGIN);
  for (const reply of replies) {
    const interceptor = pool.intercept({ path: PATH, method: 'POST' });
    if ('error' in reply) {
      interceptor.replyWithError(Object.assign(new Error(`mock ${reply.error}`), { code: reply.error }));
      continue;
    }
    interceptor.reply(() => {
      sentAt.push(clock.now());
      const data = reply.raw ?? JSON.stringify(reply.body ?? { message: `status ${reply.status}` });
      return { statusCode: reply.status, data, responseOptions: { headers: reply.headers ?? {} } };
    });
  }
  const log: string[] = [];
  const client = new ApiClient({
    baseUrl: new URL(ORIGIN),
    timeoutMs: 1000,
    retries: 5,
    maxWaitMs: 120_000,
    env: {},
    log: (line) => log.push(line),
    dispatcher: mock,
    clock,
    ...opts,
  });
  return { client, log, clock, sentAt, mock };
}

const post = (client: ApiClient, signal?: AbortSignal) => client.post(PATH, '{"limit":1}', signal);

describe('ApiClient: one retry loop, one budget', () => {
  it('retries 503s, then answers; stats count requests and retries by cause', async () => {
    const { client, log, clock } = mocked([{ status: 503 }, { status: 503 }, { status: 200, body: PAGE }]);
    expect(await post(client)).toEqual({ status: 200, json: PAGE });
    expect(client.stats).toEqual({ requests: 3, retries: { '503': 2 } });
    expect(clock.slept).toHaveLength(2);
    expect(log.filter((line) => line.includes('retry'))).toEqual([
      expect.stringMatching(/^POST \/api\/v1\/tenders\/search 503: retry 1\/5 in \d+ ms$/),
      expect.stringMatching(/: retry 2\/5 in \d+ ms$/),
    ]);
  });

  it.each([429, 500, 502, 504])('retries %i', async (status) => {
    const { client } = mocked([{ status }, { status: 200, body: PAGE }]);
    await post(client);
    expect(client.stats).toEqual({ requests: 2, retries: { [status]: 1 } });
  });

  it('gives up after --retries retries with the status, or says retrying is off', async () => {
    const three = mocked([{ status: 503 }, { status: 503 }, { status: 503 }], { retries: 2 });
    await expect(post(three.client)).rejects.toThrow(
      new ServiceError(503, PATH, 'still failing (gave up after 2 retries)', '').message,
    );
    expect(three.client.stats.requests).toBe(3);
    const none = mocked([{ status: 503 }], { retries: 0 });
    await expect(post(none.client)).rejects.toThrow(/503 to POST .*: not retried \(--retries 0\)$/);
  });

  it('does not retry other 4xx, and reads the service message', async () => {
    const { client } = mocked([{ status: 404, body: { message: 'no such thing' } }]);
    await expect(post(client)).rejects.toThrow(/^the service answered 404 to POST \/api\/v1\/tenders\/search: no such thing$/);
    expect(client.stats).toEqual({ requests: 1, retries: {} });
  });

  it('an invalid cursor is its own error', async () => {
    const { client } = mocked([{ status: 400, body: { error: 'invalid cursor' } }]);
    await expect(post(client)).rejects.toBeInstanceOf(InvalidCursorError);
  });

  it('a 2xx that is not JSON is a bad response, not retried', async () => {
    const { client } = mocked([{ status: 200, raw: '<html>oops</html>' }]);
    await expect(post(client)).rejects.toThrow(
      /^bad response from the service \(200 to POST .*\): the body is an HTML page, not JSON: this does not look like the tender service: is the base URL right\? \(it is http:\/\/[^)]+\)$/,
    );
    expect(client.stats.requests).toBe(1);
  });

  it('retries connection failures and timeouts, counted apart', async () => {
    const { client } = mocked([{ error: 'ECONNRESET' }, { error: 'UND_ERR_HEADERS_TIMEOUT' }, { status: 200, body: PAGE }]);
    await post(client);
    expect(client.stats).toEqual({ requests: 3, retries: { connection: 1, timeout: 1 } });
  });

  it.each([
    ['UND_ERR_CONNECT_TIMEOUT', 'could not connect within 1000 ms (connect timeout, --timeout)'],
    ['UND_ERR_HEADERS_TIMEOUT', 'no response headers within 1000 ms (headers timeout, --timeout)'],
    ['ECONNREFUSED', 'connection refused (is the base URL right and the service up?)'],
    ['EAI_AGAIN', 'host name not found (the name server did not answer)'],
  ])('names what failed when retries run out: %s', async (code, what) => {
    const { client } = mocked([{ error: code }, { error: code }], { retries: 1 });
    await expect(post(client)).rejects.toThrow(new NetworkError(`cannot get POST ${PATH} from ${ORIGIN}: ${what} (gave up after 1 retry)`).message);
  });

  it('a host name that does not resolve is not retried: it will not resolve a second later', async () => {
    const { client, clock } = mocked([{ error: 'ENOTFOUND' }, { status: 200, body: PAGE }]);
    await expect(post(client)).rejects.toThrow(new NetworkError(`cannot get POST ${PATH} from ${ORIGIN}: host name not found (is the base URL right?)`).message);
    expect(client.stats).toEqual({ requests: 1, retries: {} });
    expect(clock.slept).toEqual([]);
  });

  it('a person waiting is told of each retry on one line, cleared before the request ends either way', async () => {
    const shown: string[] = [];
    const retryNotice = { show: (line: string) => shown.push(line), clear: () => shown.push('(cleared)') };
    const { client, clock } = mocked([{ error: 'ECONNREFUSED' }, { status: 503 }, { status: 200, body: PAGE }], { retryNotice });
    await post(client);
    expect(shown).toEqual([
      `connection refused, retrying in ${(clock.slept[0]! / 1000).toFixed(1)} s (2 of 6)`,
      `the service answered 503, retrying in ${(clock.slept[1]! / 1000).toFixed(1)} s (3 of 6)`,
      '(cleared)',
    ]);
    shown.length = 0;
    const failing = mocked([{ error: 'ECONNREFUSED' }, { error: 'ECONNREFUSED' }], { retries: 1, retryNotice });
    await expect(post(failing.client)).rejects.toThrow(/gave up after 1 retry/);
    expect(shown).toEqual([expect.stringMatching(/^connection refused, retrying in 0\.\d s \(2 of 2\)$/), '(cleared)']);
    shown.length = 0;
    await post(mocked([{ status: 200, body: PAGE }], { retryNotice }).client);
    expect(shown).toEqual([]);
  });

  it('an error that no retry can cure fails at once', async () => {
    const { client } = mocked([{ error: 'UND_ERR_INVALID_ARG' }]);
    await expect(post(client)).rejects.toThrow(/^cannot get POST .*: mock UND_ERR_INVALID_ARG$/);
    expect(client.stats.requests).toBe(1);
  });

  it('an abort while waiting to retry ends with the abort reason', async () => {
    const clock = new ManualClock();
    const { client } = mocked([{ status: 503 }], { clock });
    const controller = new AbortController();
    const pending = post(client, controller.signal);
    await clock.sleeping(1);
    controller.abort(new Error('interrupted'));
    await expect(pending).rejects.toThrow('interrupted');
  });
});

describe('ApiClient: Retry-After and --max-wait', () => {
  it('honours a Retry-After in full, beyond the old two-minute cap', async () => {
    const { client, log, clock } = mocked([{ status: 429, headers: { 'retry-after': '300' } }, { status: 200, body: PAGE }], { maxWaitMs: 600_000 });
    await post(client);
    expect(clock.slept[0]).toBeGreaterThanOrEqual(300_000);
    expect(clock.slept[0]).toBeLessThan(300_100);
    expect(log).toContainEqual(expect.stringMatching(/retry 1\/5 in 300\d\d\d ms \(Retry-After 300 s\)$/));
  });

  it('a Retry-After beyond --max-wait ends at once, saying when the service takes requests again', async () => {
    const { client, clock } = mocked([{ status: 429, headers: { 'retry-after': '100000' } }]);
    const err = await post(client).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryAfterTooLongError);
    expect((err as Error).message).toMatch(
      /^the service answered 429 to POST \/api\/v1\/tenders\/search and accepts requests again at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, in 100000 s: longer than --max-wait 120 s, so the run stops here \(run it again after that time, or raise --max-wait\)$/,
    );
    expect(clock.slept).toEqual([]);
    expect(client.stats).toEqual({ requests: 1, retries: {} });
  });

  it('reads a Retry-After date against --max-wait too, and the time it names is that date', async () => {
    const at = new Date(Date.now() + 3_600_000);
    at.setMilliseconds(0);
    const { client } = mocked([{ status: 503, headers: { 'retry-after': at.toUTCString() } }]);
    const err = (await post(client).catch((e: unknown) => e)) as Error;
    expect(err.message).toContain(`503 to POST ${PATH} and accepts requests again at ${at.toISOString().replace('T', ' ').replace('.000Z', ' UTC')}`);
  });

  it('a Retry-After pauses every request of the client, not only the one that got it', async () => {
    const clock = new ManualClock();
    const { client, log, sentAt } = mocked(
      [{ status: 429, headers: { 'retry-after': '2' } }, { status: 200, body: PAGE }, { status: 200, body: PAGE }],
      { clock },
    );
    const first = post(client);
    await clock.sleeping(1); // the first chain waits out its Retry-After
    const second = post(client); // a second chain that never saw a 429
    await clock.sleeping(2);
    expect(sentAt).toEqual([0]);
    clock.advance(2000);
    await second;
    expect(sentAt.slice(0, 2)).toEqual([0, 2000]);
    clock.advance(100);
    await first;
    expect(sentAt[2]).toBeGreaterThanOrEqual(2000);
    expect(log).toContainEqual(expect.stringMatching(/^rate: the service asked for a pause: every request waits 2\.0 s/));
  });
});

describe('ApiClient: --rate', () => {
  it('spaces every attempt, retries included, 1/R apart', async () => {
    const { client, sentAt } = mocked([{ status: 503 }, { status: 200, body: PAGE }, { status: 200, body: PAGE }], { rate: 2 });
    await post(client);
    await post(client);
    expect(sentAt).toHaveLength(3);
    expect(sentAt[1]! - sentAt[0]!).toBeGreaterThanOrEqual(500);
    expect(sentAt[2]! - sentAt[1]!).toBeGreaterThanOrEqual(500);
  });

  it('a 429 without Retry-After halves the pace and successes bring it back, shown with --verbose', async () => {
    const { client, log } = mocked([{ status: 429 }, ...Array.from({ length: 30 }, () => ({ status: 200, body: PAGE }))], { rate: 4 });
    for (let i = 0; i < 30; i++) await post(client);
    const paces = log.filter((line) => line.startsWith('rate:'));
    expect(paces[0]).toBe('rate: 429 without Retry-After: 4.0 → 2.0 requests/s');
    expect(paces[1]).toBe('rate: recovering: 2.0 → 2.1 requests/s');
    expect(paces.at(-1)).toMatch(/→ 4\.0 requests\/s$/);
  });

  it('without --rate nothing waits', async () => {
    const { client, clock } = mocked(Array.from({ length: 5 }, () => ({ status: 200, body: PAGE })));
    for (let i = 0; i < 5; i++) await post(client);
    expect(clock.slept).toEqual([]);
  });
});

describe('ApiClient over a real connection', () => {
  let server: ScriptedServer | undefined;
  afterEach(() => server?.close());

  const client = (url: string, opts: Partial<ClientOptions> = {}) =>
    new ApiClient({ baseUrl: new URL(url), timeoutMs: 2000, retries: 2, maxWaitMs: 120_000, env: {}, clock: new JumpingClock(), ...opts });

  it('alternating 503s and bodies cut midway: --retries 2 means 3 requests in all', async () => {
    server = await startScripted((n) => (n % 2 === 1 ? json(503, { message: 'busy' }) : cut(PAGE)));
    const c = client(server.url);
    await expect(post(c)).rejects.toThrow(/^the service answered 503 to POST .*: still failing \(gave up after 2 retries\)$/);
    expect(server.requests).toHaveLength(3);
    expect(c.stats).toEqual({ requests: 3, retries: { '503': 1, 'broken-body': 1 } });
    await c.close();
  });

  it('a body broken midway is asked for again, whole', async () => {
    server = await startScripted((n) => (n === 1 ? cut(PAGE) : json(200, PAGE)));
    const c = client(server.url);
    expect(await post(c)).toEqual({ status: 200, json: PAGE });
    expect(c.stats).toEqual({ requests: 2, retries: { 'broken-body': 1 } });
    await c.close();
  });

  it('a body broken every time says so when retries run out', async () => {
    server = await startScripted(() => cut(PAGE));
    const c = client(server.url, { retries: 1 });
    await expect(post(c)).rejects.toThrow(/^cannot get POST .* from http:\/\/127\.0\.0\.1:\d+: the response broke off midway \(gave up after 1 retry\)$/);
    await c.close(true);
  });

  it('--timeout bounds the whole attempt: a body trickling faster than any gap timeout is cut', async () => {
    server = await startScripted(() => trickle(PAGE, 20));
    const c = client(server.url, { timeoutMs: 300, retries: 1 });
    await expect(post(c)).rejects.toThrow(
      /^cannot get POST .*: no complete response within 300 ms \(whole-attempt --timeout\): the body was still arriving \(gave up after 1 retry\)$/,
    );
    expect(server.requests).toHaveLength(2);
    expect(c.stats.retries).toEqual({ timeout: 1 });
    await c.close(true);
  });

  it('--timeout bounds the wait for an answer that never starts', async () => {
    server = await startScripted(() => silence);
    const c = client(server.url, { timeoutMs: 200, retries: 0 });
    await expect(post(c)).rejects.toThrow(/: no complete response within 200 ms \(whole-attempt --timeout\): nothing had arrived$/);
    await c.close(true);
  });

  it('a body over the size bound is a bad response', async () => {
    server = await startScripted(() => (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"tenders":[],"page":{"nextCursor":null,"total":null},"pad":"${'x'.repeat(17 * 1024 * 1024)}"}`);
    });
    // No race with the clock: 17 MiB may take seconds on a loaded machine, and the bound, not a timeout, must end it.
    const c = client(server.url, { timeoutMs: 600_000 });
    await expect(post(c)).rejects.toBeInstanceOf(BadResponseError);
    await c.close(true);
  });

  it('an abort from the caller ends the attempt with its reason, not as a timeout', async () => {
    server = await startScripted(() => silence);
    const c = client(server.url);
    const controller = new AbortController();
    const pending = post(c, controller.signal);
    while (server.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error('interrupted'));
    await expect(pending).rejects.toThrow('interrupted');
    expect(c.stats.retries).toEqual({});
    await c.close(true);
  });
});
