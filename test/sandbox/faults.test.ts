import { describe, expect, it } from 'vitest';
import { startSandbox, type RequestLogEntry } from '../../src/sandbox/server.js';
import { useSandbox } from '../support/sandbox.js';
import { ids, ORGS, orgTenders, post, results, TENDERS, walk, type Item } from './http.js';

const sb = useSandbox({ size: 500, seed: 5 });
const search = (body: unknown) => post(sb.url, TENDERS, body);

/**
 * Sends a search and hangs up once the sandbox has it (`arrived` sees it
 * first): the log of that request once the sandbox is done with it. No
 * answer before the hang-up shows as status 0 and clientClosed.
 */
async function hangUpOnArrival(arrived: (entry: RequestLogEntry) => void = () => {}): Promise<RequestLogEntry[]> {
  sb.clearRequests();
  const controller = new AbortController();
  const pending = fetch(`${sb.url}${TENDERS}`, { method: 'POST', body: '{}', signal: controller.signal });
  arrived(await sb.arrived());
  controller.abort();
  await expect(pending).rejects.toThrow();
  await sb.idle();
  return sb.requests;
}

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
    // Ahead of the moment it was made, somewhere between sending and receiving: however long that took.
    const sent = Date.now();
    const header = (await search({})).headers.get('retry-after')!;
    const received = Date.now();
    expect(header).toMatch(/^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/);
    expect(Date.parse(header) - sent).toBeGreaterThan(-1000);
    expect(Date.parse(header) - received).toBeLessThanOrEqual(2000);
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
    sb.setFaults({ stallEvery: 1, stallMs: 600_000 });
    expect(await hangUpOnArrival()).toEqual([expect.objectContaining({ status: 0, fault: 'stall', clientClosed: true })]);
    sb.setFaults({ stallEvery: 1, stallMs: 20 });
    expect((await search({})).status).toBe(200);
    expect(sb.requests.at(-1)).toMatchObject({ status: 200, fault: 'stall' });
  });

  it('ends a stall when the client hangs up', async () => {
    sb.setFaults({ stallEvery: 1, stallMs: 600_000 });
    // Waiting out the stall would outlast the test's timeout: it ends when the client hangs up.
    expect(await hangUpOnArrival((entry) => expect(entry.fault).toBe('stall'))).toEqual([
      expect.objectContaining({ status: 0, fault: 'stall', clientClosed: true }),
    ]);
  });

  it('delays every response by the latency', async () => {
    // Held back until the client gives up, however long the machine takes to get there.
    sb.setFaults({ latencyMs: 600_000 });
    expect(await hangUpOnArrival()).toEqual([expect.objectContaining({ status: 0, clientClosed: true })]);
    // Never shorter than the latency (a lower bound: a loaded machine only adds to it).
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

describe('cursor cycles', () => {
  it('from the Nth request, a cursor comes back as its own nextCursor, again and again', async () => {
    const truth = sb.truth(TENDERS, { limit: 10 });
    sb.setFaults({ cursorCycleAt: 3 });
    const first = (await search({ limit: 10 })).json();
    const c1 = first.page.nextCursor!;
    const second = (await search({ limit: 10, cursor: c1 })).json();
    const c2 = second.page.nextCursor!;
    expect(c2).not.toBe(c1);
    const third = (await search({ limit: 10, cursor: c2 })).json();
    expect(third.page.nextCursor).toBe(c2);
    expect(results(third)).toEqual(truth.slice(20, 30));
    // A client that follows nextCursor blindly never gets anywhere else.
    const cursors = new Set<string>();
    let cursor = third.page.nextCursor!;
    for (let i = 0; i < 10; i++) {
      const page = (await search({ limit: 10, cursor })).json();
      expect(results(page)).toEqual(truth.slice(20, 30));
      cursors.add((cursor = page.page.nextCursor!));
    }
    expect([...cursors]).toEqual([c2]);
    expect(sb.requests.slice(-12).map((r) => r.fault ?? null)).toEqual([null, ...Array<string>(11).fill('cursorCycle')]);
    // setFaults ends it.
    sb.setFaults({});
    expect((await search({ limit: 10, cursor: c2 })).json().page.nextCursor).not.toBe(c2);
  });

  it('starts at the first request with a cursor at or after the Nth, on every operation; a bad cursor is still refused', async () => {
    sb.setFaults({ cursorCycleAt: 1 });
    const c1 = (await search({ limit: 5 })).json().page.nextCursor!;
    expect((await search({ limit: 5, cursor: 'garbage' })).status).toBe(400);
    expect((await search({ limit: 5, cursor: c1 })).json().page.nextCursor).toBe(c1);
    sb.setFaults({ cursorCycleAt: 2 });
    const o1 = (await post(sb.url, ORGS, { limit: 5 })).json().page.nextCursor!;
    const cycled = (await post(sb.url, ORGS, { limit: 5, cursor: o1 })).json();
    expect(cycled.page.nextCursor).toBe(o1);
    expect(results(cycled)).toEqual(sb.truth(ORGS, {}).slice(5, 10));
  });
});

describe('trickled bodies', () => {
  it('sends the headers at once, then a few bytes at a time, and stops when the client hangs up', async () => {
    sb.setFaults({ trickleMs: 20, trickleBytes: 4 });
    const controller = new AbortController();
    const res = await fetch(`${sb.url}${TENDERS}`, { method: 'POST', body: '{}', signal: controller.signal });
    expect(res.status).toBe(200);
    const length = Number(res.headers.get('content-length'));
    expect(length).toBeGreaterThan(5000);
    const reader = res.body!.getReader();
    let received = 0;
    for (let i = 0; i < 3; i++) received += (await reader.read()).value!.length;
    expect(received).toBeLessThan(length);
    controller.abort();
    // Sending the rest 4 bytes every 20 ms would outlast the test's timeout.
    await sb.idle();
    expect(sb.requests.at(-1)).toMatchObject({ status: 200, clientClosed: true });
  });

  it('delivers the same body as without the fault, whole', async () => {
    const plain = (await post(sb.url, ORGS, { limit: 2 })).text;
    sb.setFaults({ trickleMs: 1, trickleBytes: 7 });
    const res = await post(sb.url, ORGS, { limit: 2 });
    expect(res.text).toBe(plain);
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(plain)));
    await sb.idle();
    expect(sb.requests.at(-1)).not.toHaveProperty('clientClosed');
    // Errors trickle too.
    expect((await search({ limit: 0 })).status).toBe(400);
  });

  it('stops when the sandbox closes', async () => {
    const other = await startSandbox({ size: 100, seed: 1, faults: { trickleMs: 50, trickleBytes: 1 } });
    const res = await fetch(`${other.url}${TENDERS}`, { method: 'POST', body: '{}' });
    const reader = res.body!.getReader();
    await reader.read();
    await other.close();
    await expect(reader.read().then(async function drain(r): Promise<unknown> {
      return r.done ? r : drain(await reader.read());
    })).rejects.toThrow();
    await other.idle();
  });
});

describe('exotic fields', () => {
  const EXOTIC_TEXT = '"bigRef":12345678901234567890,"exactAmount":9007199254740993,"precise":0.10000000000000000555,"toString":"plain data","constructor":{"name":"plain data"},"hasOwnProperty":false,"__proto__":{"polluted":true}}';

  it('every tenth tender carries raw numbers no double holds and keys named like Object.prototype\'s', async () => {
    const truth = sb.truth(TENDERS, { limit: 100 });
    sb.setFaults({ exoticFields: true });
    const text = (await search({ limit: 100 })).text;
    const page = JSON.parse(text) as { tenders: Record<string, unknown>[] };
    const exotic = page.tenders.filter((t) => Number((t.id as string).slice(2)) % 10 === 0);
    expect(exotic.length).toBeGreaterThan(3);
    expect(text.split(EXOTIC_TEXT)).toHaveLength(exotic.length + 1);
    for (const t of page.tenders) {
      const has = exotic.includes(t);
      expect(Object.hasOwn(t, '__proto__'), t.id as string).toBe(has);
      expect(Object.hasOwn(t, 'bigRef')).toBe(has);
      expect(Object.hasOwn(t, 'toString')).toBe(has);
    }
    expect(exotic[0]!.toString).toBe('plain data');
    expect(Object.getPrototypeOf(exotic[0])).toBe(Object.prototype);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    // Apart from them, the tenders are the plain ones.
    const strip = (t: Record<string, unknown>) => {
      const plain = { ...t };
      for (const key of ['bigRef', 'exactAmount', 'precise', 'toString', 'constructor', 'hasOwnProperty', '__proto__']) delete plain[key];
      return plain;
    };
    expect(page.tenders.map((t) => JSON.stringify(strip(t)))).toEqual(truth.slice(0, 100).map((t) => JSON.stringify(t)));
  });
});

describe('schema drift and order', () => {
  it('driftAfter K: tenders of answers after the Kth carry a field earlier ones did not', async () => {
    sb.setFaults({ driftAfter: 2 });
    const pages: Record<string, unknown>[][] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 4; i++) {
      const page = (await search(cursor ? { limit: 5, cursor } : { limit: 5 })).json();
      pages.push(results(page));
      cursor = page.page.nextCursor;
    }
    const truth = sb.truth(TENDERS, {});
    for (const [i, items] of pages.entries()) {
      expect(items.every((t) => 'amendment' in t)).toBe(i >= 2);
      expect(items.map(({ amendment: _, ...t }) => t)).toEqual(truth.slice(i * 5, i * 5 + 5));
    }
    expect(pages[3]![0]!.amendment).toEqual({ number: 1, reason: 'Corrigendum: clarification of the tender documents' });
  });

  type Key = (t: Item) => string | number;
  it.each<[{ limit: number; sortBy?: string; sortOrder?: string }, Key, number]>([
    [{ limit: 10, sortBy: 'estimatedValue' }, (t) => (t.estimatedValue as { amountEur: number }).amountEur, -1],
    [{ limit: 10, sortBy: 'deadline', sortOrder: 'desc' }, (t) => t.deadline as string, -1],
    [{ limit: 25 }, (t) => t.publicationDate as string, -1],
    [{ limit: 10, sortBy: 'deadline' }, (t) => t.deadline as string, 1],
  ])('missort: every page of %j has the right items with their sort keys out of order', async (body, key, sign) => {
    sb.setFaults({ missort: true });
    const { items, pages } = await walk(sb.url, TENDERS, body);
    const truth = sb.truth(TENDERS, body);
    expect(pages).toBe(Math.ceil(truth.length / body.limit));
    for (let p = 0; p < pages; p++) {
      const page = items.slice(p * body.limit, (p + 1) * body.limit);
      expect(ids(page).sort()).toEqual(ids(truth.slice(p * body.limit, (p + 1) * body.limit)).sort());
      const keys = page.map(key);
      if (new Set(keys).size < 2) continue;
      expect(keys.some((k, i) => i > 0 && sign * (k < keys[i - 1]! ? -1 : k > keys[i - 1]! ? 1 : 0) < 0), `page ${p}`).toBe(true);
    }
  });

  it('missort: organisation pages too', async () => {
    sb.setFaults({ missort: true });
    const names = results((await post(sb.url, ORGS, { limit: 10 })).json()).map((o) => o.name as string);
    expect(names).not.toEqual([...names].sort());
    expect(names.slice(1, -1)).toEqual(sb.truth(ORGS, {}).slice(1, 9).map((o) => (o as Item).name));
  });
});

describe('429 without Retry-After, or with a long one', () => {
  it('retryAfter "none" leaves the header out; large values are sent as given', async () => {
    sb.setFaults({ rateLimitEvery: 1, retryAfter: 'none' });
    const bare = await search({});
    expect(bare.status).toBe(429);
    expect(bare.headers.has('retry-after')).toBe(false);
    sb.setFaults({ rateLimitEvery: 1, retryAfter: '100000' });
    expect((await search({})).headers.get('retry-after')).toBe('100000');
  });
});

describe('the request log', () => {
  it('stamps each request with its arrival time, and clearRequests empties it in place', async () => {
    const log = sb.requests;
    const before = Date.now();
    await search({ limit: 1 });
    await search({ limit: 2 });
    const [a, b] = sb.requests.slice(-2);
    expect(a!.t).toBeGreaterThanOrEqual(before - 1);
    expect(b!.t).toBeGreaterThanOrEqual(a!.t);
    expect(b!.t).toBeLessThanOrEqual(Date.now() + 1);
    const n = b!.n;
    sb.clearRequests();
    expect(sb.requests).toBe(log);
    expect(log).toEqual([]);
    await search({});
    expect(log).toHaveLength(1);
    expect(log[0]!.n).toBe(n + 1);
  });
});
