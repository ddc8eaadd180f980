import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { ids, orgTenders, post, results, TENDERS, walk } from './http.js';

let sb: Sandbox;
const search = (body: unknown) => post(sb.url, TENDERS, body);

beforeAll(async () => {
  sb = await startSandbox({ size: 500, seed: 5 });
});
afterAll(() => sb.close());
beforeEach(() => sb.setFaults({}));

describe('faults', () => {
  it('429 with Retry-After in seconds, by default 1', async () => {
    sb.setFaults({ rateLimitEvery: 2, retryAfter: '3' });
    expect((await search({})).status).toBe(200);
    const limited = await search({});
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect(JSON.parse(limited.text)).toEqual({ message: 'rate limited' });
    sb.setFaults({ rateLimitEvery: 1 });
    expect((await search({})).headers.get('retry-after')).toBe('1');
  });

  it('429 with Retry-After as an HTTP date about a second ahead', async () => {
    sb.setFaults({ rateLimitEvery: 1, retryAfter: 'date' });
    const header = (await search({})).headers.get('retry-after')!;
    expect(header).toMatch(/^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/);
    const ahead = Date.parse(header) - Date.now();
    expect(ahead).toBeGreaterThan(-1000);
    expect(ahead).toBeLessThanOrEqual(2000);
  });

  it('every Nth request is an error; setFaults starts counting again', async () => {
    sb.setFaults({ errorEvery: 2, errorStatus: 502 });
    expect((await search({})).status).toBe(200);
    expect((await search({})).status).toBe(502);
    expect((await search({})).status).toBe(200);
    sb.setFaults({ errorEvery: 2 });
    expect((await search({})).status).toBe(200);
    const error = await search({});
    expect(error.status).toBe(503);
    expect(JSON.parse(error.text)).toHaveProperty('message');
  });

  it('every request after the Kth fails', async () => {
    sb.setFaults({ failAfter: 2, failStatus: 500 });
    expect((await search({})).status).toBe(200);
    expect((await search({})).status).toBe(200);
    expect((await search({})).status).toBe(500);
    expect((await search({})).status).toBe(500);
    expect(sb.requests.at(-1)).toMatchObject({ path: TENDERS, status: 500, fault: 'fail' });
  });

  it('drops the connection without a response', async () => {
    sb.setFaults({ dropEvery: 1 });
    await expect(search({})).rejects.toThrow();
    expect(sb.requests.at(-1)).toMatchObject({ status: 0, fault: 'drop' });
  });

  it('cuts the connection in the middle of a body', async () => {
    sb.setFaults({ cutEvery: 1 });
    await expect(search({})).rejects.toThrow();
    expect(sb.requests.at(-1)).toMatchObject({ status: 200, fault: 'cut' });
  });

  it('stalls before the headers', async () => {
    sb.setFaults({ stallEvery: 1, stallMs: 5000 });
    await expect(fetch(`${sb.url}${TENDERS}`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(200) })).rejects.toThrow();
    sb.setFaults({ stallEvery: 1, stallMs: 20 });
    expect((await search({})).status).toBe(200);
    expect(sb.requests.at(-1)).toMatchObject({ status: 200, fault: 'stall' });
  });

  it('delays every response by the latency', async () => {
    sb.setFaults({ latencyMs: 30 });
    const started = Date.now();
    expect((await search({})).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('applies the first rule by precedence: failAfter, drop, rate limit, error, stall, malformed', async () => {
    const all = { dropEvery: 1, rateLimitEvery: 1, errorEvery: 1, stallEvery: 1, stallMs: 1, malformedEvery: 1 };
    sb.setFaults({ ...all, failAfter: 0 });
    expect((await search({})).status).toBe(503);
    sb.setFaults(all);
    await expect(search({})).rejects.toThrow();
    sb.setFaults({ ...all, dropEvery: undefined });
    expect((await search({})).status).toBe(429);
    sb.setFaults({ ...all, dropEvery: undefined, rateLimitEvery: undefined });
    expect((await search({})).status).toBe(503);
    sb.setFaults({ stallEvery: 1, stallMs: 1, malformedEvery: 1 });
    expect((await search({})).status).toBe(200);
    expect(sb.requests.slice(-5).map((r) => r.fault)).toEqual(['fail', 'drop', 'rateLimit', 'error', 'stall']);
  });
});

describe('malformed bodies', () => {
  const parsed = (text: string) => {
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  };

  it('html: an HTML error page', async () => {
    sb.setFaults({ malformedEvery: 1, malformed: 'html' });
    const res = await search({});
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toMatch(/^<!DOCTYPE html>/);
    expect(sb.requests.at(-1)!.fault).toBe('malformed:html');
  });

  it('nopage, noresults, twoarrays: JSON that breaks the page contract', async () => {
    sb.setFaults({ malformedEvery: 1, malformed: 'nopage' });
    expect(parsed((await search({})).text)).not.toHaveProperty('page');
    sb.setFaults({ malformedEvery: 1, malformed: 'noresults' });
    const noResults = parsed((await search({})).text)!;
    expect(noResults).toHaveProperty('page');
    expect(Object.values(noResults).some(Array.isArray)).toBe(false);
    sb.setFaults({ malformedEvery: 1, malformed: 'twoarrays' });
    expect(Object.values(parsed((await search({})).text)!).filter(Array.isArray)).toHaveLength(2);
  });

  it('truncated: JSON cut in the middle, with a matching content-length', async () => {
    sb.setFaults({ malformedEvery: 1, malformed: 'truncated' });
    const res = await search({ limit: 10 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(res.text)));
    expect(res.text.startsWith('{"tenders":[{')).toBe(true);
    expect(parsed(res.text)).toBeUndefined();
  });

  it('huge: 40 MiB of valid JSON', async () => {
    sb.setFaults({ malformedEvery: 1, malformed: 'huge' });
    const res = await fetch(`${sb.url}${TENDERS}`, { method: 'POST', body: '{}' });
    expect(res.headers.get('content-length')).toBe(String(40 * 1024 * 1024));
    const text = await res.text();
    expect(text.length).toBe(40 * 1024 * 1024);
    expect(JSON.parse(text)).toHaveProperty('page');
  });

  it('huge: a client hanging up half way does not disturb the service', async () => {
    sb.setFaults({ malformedEvery: 1, malformed: 'huge' });
    const controller = new AbortController();
    const res = await fetch(`${sb.url}${TENDERS}`, { method: 'POST', body: '{}', signal: controller.signal });
    await res.body!.getReader().read();
    controller.abort();
    sb.setFaults({});
    expect((await search({})).status).toBe(200);
  });
});

describe('data shifting under the reader', () => {
  it('repeatOverlap starts each cursor page with the previous page\'s last tender, then `limit` more', async () => {
    const truth = sb.truth(TENDERS, { limit: 5 });
    sb.setFaults({ repeatOverlap: true });
    const first = (await search({ limit: 5 })).json();
    expect(results(first)).toEqual(truth.slice(0, 5));
    const second = (await search({ limit: 5, cursor: first.page.nextCursor })).json();
    expect(results(second)).toEqual(truth.slice(4, 10));
    const third = (await search({ limit: 5, cursor: second.page.nextCursor })).json();
    expect(results(third)).toEqual(truth.slice(9, 15));
  });

  it('insertPerRequest: a walk never repeats or skips a tender that existed at the start', async () => {
    const changing = await startSandbox({ size: 400, seed: 4, faults: { insertPerRequest: 7 } });
    try {
      for (const body of [{ limit: 30 }, { limit: 30, sortBy: 'deadline', sortOrder: 'desc' }]) {
        const before = ids(changing.truth(TENDERS, body));
        const seen = ids((await walk(changing.url, TENDERS, body)).items);
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen.filter((id) => before.includes(id))).toEqual(before);
      }
      expect(changing.truth(TENDERS, {}).length).toBeGreaterThan(400);
    } finally {
      await changing.close();
    }
  });

  it('resultsKey renames the results of both tender operations', async () => {
    sb.setFaults({ resultsKey: 'items' });
    expect(Object.keys((await search({ limit: 1 })).json())).toEqual(['items', 'page']);
    const org = (sb.truth('/api/v1/organisations/search', {})[0] as { id: string }).id;
    expect(Object.keys((await post(sb.url, orgTenders(org), { limit: 1 })).json())).toEqual(['items', 'page']);
    expect(Object.keys((await post(sb.url, '/api/v1/organisations/search', { limit: 1 })).json())).toEqual(['organisations', 'page']);
  });
});

describe('cache', () => {
  it('answers as without it, and sees inserted tenders', async () => {
    const cached = await startSandbox({ size: 500, seed: 5, cache: true });
    try {
      for (const body of [{}, { limit: 100, sortBy: 'deadline' }]) {
        expect((await walk(cached.url, TENDERS, body)).items).toEqual(sb.truth(TENDERS, body));
        expect((await walk(cached.url, TENDERS, body)).items).toEqual(sb.truth(TENDERS, body));
      }
      cached.insert(1);
      const page = (await post(cached.url, TENDERS, {})).json();
      expect(page.page.total!.count).toBe(501);
      expect(results(page)).toEqual(cached.truth(TENDERS, {}).slice(0, 25));
    } finally {
      await cached.close();
    }
  });
});
