import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';

const PATH = '/api/v1/tenders/search';
type Page = { tenders?: Record<string, unknown>[]; organisations?: Record<string, unknown>[]; page: { nextCursor: string | null; total: { count: number; capped: boolean } | null } };
let sb: Sandbox;

async function post(path: string, body: unknown, url = sb.url) {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) as Page };
}

/** Every item of a full cursor walk, and the number of pages it took. */
async function walk(path: string, body: Record<string, unknown>, url = sb.url, between?: () => void) {
  const items: Record<string, unknown>[] = [];
  let cursor: string | null | undefined;
  let pages = 0;
  do {
    const res = await post(path, cursor ? { ...body, cursor } : body, url);
    expect(res.status).toBe(200);
    const page = res.json();
    pages++;
    if (cursor) expect(page.page.total).toBeNull();
    else expect(page.page.total).not.toBeNull();
    items.push(...(page.tenders ?? page.organisations ?? []));
    cursor = page.page.nextCursor;
    between?.();
  } while (cursor);
  return { items, pages };
}

beforeAll(async () => {
  sb = await startSandbox({ size: 2000, seed: 5 });
});
afterAll(() => sb.close());
beforeEach(() => sb.setFaults({}));

describe('Search Tenders', () => {
  it.each([
    [{}],
    [{ limit: 100 }],
    [{ limit: 7, sortBy: 'deadline' }],
    [{ limit: 100, sortBy: 'deadline', sortOrder: 'desc' }],
    [{ limit: 100, sortBy: 'estimatedValue' }],
    [{ limit: 33, sortBy: 'estimatedValue', sortOrder: 'asc', statuses: ['open'] }],
    [{ limit: 100, sortBy: 'publicationDate', sortOrder: 'asc', buyerCountries: ['DEU', 'GRC'] }],
  ])('a full walk of %j equals the truth, without an empty last page', async (body) => {
    const { items, pages } = await walk(PATH, body);
    const truth = sb.truth(PATH, body);
    expect(items).toEqual(truth);
    expect(pages).toBe(Math.max(1, Math.ceil(truth.length / ((body as { limit?: number }).limit ?? 25))));
  });

  it('applies the sort defaults and exclusions of section 3.2', async () => {
    const all = sb.truth(PATH, {}) as { publicationDate: string; deadline: string | null; estimatedValue: { amountEur: number } | null }[];
    expect(all).toHaveLength(2000);
    expect(all[0]!.publicationDate >= all.at(-1)!.publicationDate).toBe(true);
    const byDeadline = sb.truth(PATH, { sortBy: 'deadline' }) as typeof all;
    expect(byDeadline.length).toBe(all.filter((t) => t.deadline !== null).length);
    expect(byDeadline[0]!.deadline! <= byDeadline.at(-1)!.deadline!).toBe(true);
    const byValue = sb.truth(PATH, { sortBy: 'estimatedValue' }) as typeof all;
    expect(byValue.length).toBe(all.filter((t) => t.estimatedValue !== null).length);
    expect(byValue[0]!.estimatedValue!.amountEur).toBeGreaterThanOrEqual(byValue.at(-1)!.estimatedValue!.amountEur);
    const page = (await post(PATH, { sortBy: 'deadline', limit: 100 })).json();
    expect(page.tenders!.every((t) => t.deadline !== null)).toBe(true);
  });

  it('counts up to 10 000 and says when it stopped counting', async () => {
    expect((await post(PATH, {})).json().page.total).toEqual({ count: 2000, capped: false });
    const big = await startSandbox({ size: 10_001, seed: 1 });
    try {
      expect((await post(PATH, {}, big.url)).json().page.total).toEqual({ count: 10_000, capped: true });
      expect((await post(PATH, { statuses: ['cancelled'] }, big.url)).json().page.total!.capped).toBe(false);
    } finally {
      await big.close();
    }
  });

  it('binds cursors to filters, sort and effective order', async () => {
    const first = (await post(PATH, { sortBy: 'deadline', limit: 5 })).json();
    const cursor = first.page.nextCursor!;
    expect((await post(PATH, { sortBy: 'deadline', sortOrder: 'asc', limit: 9, cursor })).status).toBe(200);
    for (const changed of [{ sortBy: 'deadline', sortOrder: 'desc' }, { sortBy: 'estimatedValue' }, { sortBy: 'deadline', statuses: ['open'] }, {}]) {
      const res = await post(PATH, { ...changed, cursor });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text)).toEqual({ message: 'invalid cursor' });
    }
    expect((await post(PATH, { sortBy: 'deadline', cursor: `${cursor}x` })).status).toBe(400);
  });

  it.each([
    [{ limit: 0 }, 'limit must be an integer between 1 and 100'],
    [{ limit: 101 }, 'limit must be an integer between 1 and 100'],
    [{ limit: 2.5 }, 'limit must be an integer between 1 and 100'],
    [{ limit: '10' }, 'limit must be an integer between 1 and 100'],
    [{ sortBy: 'title' }, 'sortBy must be one of publicationDate, deadline, estimatedValue'],
    [{ sortOrder: 'up' }, 'sortOrder must be asc or desc'],
    [{ buyerCountries: ['de'] }, 'buyerCountries must be an array of three-letter country codes'],
    [{ statuses: ['pending'] }, 'statuses: unknown value "pending" (allowed: open, closed, awarded, cancelled)'],
    [{ colour: 'red' }, 'unknown field: colour'],
    [[1], 'the request body must be a JSON object'],
  ])('refuses %j with 400', async (body, message) => {
    const res = await post(PATH, body);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ message });
  });

  it('keyset paging neither skips nor repeats while tenders are inserted', async () => {
    const changing = await startSandbox({ size: 600, seed: 8 });
    try {
      const before = new Set(changing.truth(PATH, { sortBy: 'deadline' }).map((t) => (t as { id: string }).id));
      const { items } = await walk(PATH, { sortBy: 'deadline', limit: 50 }, changing.url, () => changing.insert(20));
      const ids = items.map((t) => t.id as string);
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of before) expect(ids).toContain(id);
    } finally {
      await changing.close();
    }
  });
});

describe('faults', () => {
  it('answers 429 with Retry-After in seconds or as an HTTP date', async () => {
    sb.setFaults({ rateLimitEvery: 2, retryAfter: '3' });
    expect((await post(PATH, {})).status).toBe(200);
    const limited = await post(PATH, {});
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    sb.setFaults({ rateLimitEvery: 1, retryAfter: 'date' });
    const dated = await post(PATH, {});
    expect(Date.parse(dated.headers.get('retry-after')!)).toBeGreaterThan(Date.now() - 1000);
  });

  it('answers errors, fails after K requests, and logs each fault', async () => {
    sb.setFaults({ errorEvery: 2, errorStatus: 502 });
    expect((await post(PATH, {})).status).toBe(200);
    expect((await post(PATH, {})).status).toBe(502);
    sb.setFaults({ failAfter: 1, failStatus: 500 });
    expect((await post(PATH, {})).status).toBe(200);
    expect((await post(PATH, {})).status).toBe(500);
    expect(sb.requests.at(-1)).toMatchObject({ path: PATH, status: 500, fault: 'fail' });
  });

  it('drops connections without a response', async () => {
    sb.setFaults({ dropEvery: 1 });
    await expect(post(PATH, {})).rejects.toThrow();
  });

  it.each(['html', 'nopage', 'noresults', 'twoarrays', 'truncated'] as const)('sends a malformed 200 body (%s)', async (malformed) => {
    sb.setFaults({ malformedEvery: 1, malformed });
    const res = await post(PATH, {});
    expect(res.status).toBe(200);
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = JSON.parse(res.text) as Record<string, unknown>;
    } catch {
      parsed = undefined;
    }
    if (malformed === 'html' || malformed === 'truncated') expect(parsed).toBeUndefined();
    if (malformed === 'nopage') expect(parsed?.page).toBeUndefined();
    if (malformed === 'noresults') expect(Object.values(parsed!).some(Array.isArray)).toBe(false);
    if (malformed === 'twoarrays') expect(Object.values(parsed!).filter(Array.isArray)).toHaveLength(2);
  });

  it('repeats the previous page\'s last tender at the start of a cursor page', async () => {
    sb.setFaults({ repeatOverlap: true });
    const first = (await post(PATH, { limit: 5 })).json();
    const second = (await post(PATH, { limit: 5, cursor: first.page.nextCursor })).json();
    expect(second.tenders![0]).toEqual(first.tenders![4]);
    expect(second.tenders).toHaveLength(6);
  });

  it('renames the results key', async () => {
    sb.setFaults({ resultsKey: 'items' });
    expect(Object.keys((await post(PATH, { limit: 1 })).json())).toEqual(['items', 'page']);
  });
});

describe('organisations', () => {
  it('walks every organisation, filters by country and name, and 404s an unknown id', async () => {
    const { items } = await walk('/api/v1/organisations/search', { limit: 17 });
    expect(items).toEqual(sb.truth('/api/v1/organisations/search', {}));
    expect(items.reduce((n, o) => n + (o.tenderCount as number), 0)).toBe(2000);
    const filtered = (await post('/api/v1/organisations/search', { countries: ['GRC'], query: 'δήμος' })).json();
    expect(filtered.organisations!.length).toBeGreaterThan(0);
    expect(filtered.organisations!.every((o) => o.country === 'GRC' && /δήμος/i.test(o.name as string))).toBe(true);
    const missing = await post('/api/v1/organisations/ORG-XXX-0001/tenders/search', {});
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text)).toEqual({ message: 'organisation not found: ORG-XXX-0001' });
  });
});

describe('tenders-sandbox bin', () => {
  it('prints its URL first, serves, logs each request, and stops on SIGTERM', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'sandbox-log-')), 'requests.ndjson');
    const args = ['bin/tenders-sandbox.js', '--size', '100', '--seed', '3', '--error-every', '2', '--log', log];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const url = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await post(PATH, { limit: 3 }, url)).json().page.total).toEqual({ count: 100, capped: false });
    expect((await post(PATH, {}, url)).status).toBe(503);
    const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    const lines = readFileSync(log, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as unknown);
    expect(lines).toEqual([
      { n: 1, method: 'POST', path: PATH, body: { limit: 3 }, status: 200 },
      { n: 2, method: 'POST', path: PATH, body: {}, status: 503, fault: 'error' },
    ]);
  });

  it('refuses a bad flag with exit 2', async () => {
    const child = spawn(process.execPath, ['bin/tenders-sandbox.js', '--size', 'many'], { stdio: 'ignore' });
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(2);
  });
});
