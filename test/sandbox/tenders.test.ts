import { request, Agent } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { useSandbox } from '../support/sandbox.js';
import { ids, post, results, TENDERS, walk, type Item } from './http.js';

type Tender = { id: string; publicationDate: string; deadline: string | null; estimatedValue: { amountEur: number } | null };
const sb = useSandbox({ size: 2000, seed: 5 });
const search = (body: unknown) => post(sb.url, TENDERS, body);

describe('Search Tenders walks', () => {
  it.each([
    [{}],
    [{ limit: 100 }],
    [{ limit: 7, sortBy: 'deadline' }],
    [{ limit: 100, sortBy: 'deadline', sortOrder: 'desc' }],
    [{ limit: 100, sortBy: 'estimatedValue' }],
    [{ limit: 33, sortBy: 'estimatedValue', sortOrder: 'asc', statuses: ['open'] }],
    [{ limit: 100, sortBy: 'publicationDate', sortOrder: 'asc', buyerCountries: ['DEU', 'GRC'] }],
    [{ limit: 7, buyerCountries: ['FRA', 'ITA'], statuses: ['open', 'awarded'], sortBy: 'deadline', sortOrder: 'desc' }],
    [{ limit: 10, query: 'DE', minValue: 50_000, maxValue: 2_000_000, cpv: '45' }],
  ])('a full walk of %j equals the truth, without an empty last page', async (body) => {
    const { items, pages } = await walk(sb.url, TENDERS, body);
    const truth = sb.truth(TENDERS, body);
    expect(truth.length).toBeGreaterThan(0);
    expect(items).toEqual(truth);
    expect(pages).toBe(Math.ceil(truth.length / ((body as { limit?: number }).limit ?? 25)));
  });

  it('applies the extra filters: query, minValue/maxValue in EUR, cpv prefix', () => {
    type Full = Tender & { title: string; cpv: string };
    const expected = (sb.truth(TENDERS, {}) as Full[]).filter(
      (t) => t.title.toLowerCase().includes('de') && t.estimatedValue !== null && t.estimatedValue.amountEur >= 50_000 && t.estimatedValue.amountEur <= 2_000_000 && t.cpv.startsWith('45'),
    );
    expect(sb.truth(TENDERS, { query: 'De', minValue: 50_000, maxValue: 2_000_000, cpv: '45' })).toEqual(expected);
    const withValue = (sb.truth(TENDERS, {}) as Full[]).filter((t) => t.estimatedValue !== null);
    expect(sb.truth(TENDERS, { minValue: 0 })).toEqual(withValue);
  });

  it('ends with nextCursor null when exactly `limit` items remain', async () => {
    const body = { statuses: ['cancelled'], buyerCountries: ['DEU'] };
    const n = sb.truth(TENDERS, body).length;
    const page = (await search({ ...body, limit: n })).json();
    expect(results(page)).toHaveLength(n);
    expect(page.page).toEqual({ nextCursor: null, total: { count: n, capped: false } });
    expect((await search({ ...body, buyerCountries: ['XXX'] })).json().page).toEqual({ nextCursor: null, total: { count: 0, capped: false } });
  });

  it('applies the sort defaults and exclusions of section 3.2', () => {
    const all = sb.truth(TENDERS, {}) as Tender[];
    expect(all).toHaveLength(2000);
    expect(all[0]!.publicationDate >= all.at(-1)!.publicationDate).toBe(true);
    const byDeadline = sb.truth(TENDERS, { sortBy: 'deadline' }) as Tender[];
    expect(byDeadline.length).toBe(all.filter((t) => t.deadline !== null).length);
    expect(byDeadline.length).toBeLessThan(all.length);
    expect(byDeadline[0]!.deadline! < byDeadline.at(-1)!.deadline!).toBe(true);
    const byValue = sb.truth(TENDERS, { sortBy: 'estimatedValue' }) as Tender[];
    expect(byValue.length).toBe(all.filter((t) => t.estimatedValue !== null).length);
    expect(byValue.length).toBeLessThan(all.length);
    expect(byValue[0]!.estimatedValue!.amountEur).toBeGreaterThan(byValue.at(-1)!.estimatedValue!.amountEur);
  });

  it('breaks ties by id in the direction of the sort', () => {
    for (const sortOrder of ['asc', 'desc'] as const) {
      const list = sb.truth(TENDERS, { sortOrder }) as Tender[];
      const sign = sortOrder === 'asc' ? 1 : -1;
      for (let i = 1; i < list.length; i++) {
        const [a, b] = [list[i - 1]!, list[i]!];
        if (a.publicationDate === b.publicationDate) expect(sign * a.id.localeCompare(b.id)).toBeLessThan(0);
      }
    }
  });

  it('sends the documented shape: results, then page; tender keys in order; JSON with a length', async () => {
    const res = await search({ limit: 1 });
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(res.text)));
    const page = res.json();
    expect(Object.keys(page)).toEqual(['tenders', 'page']);
    expect(Object.keys(page.page)).toEqual(['nextCursor', 'total']);
    expect(Object.keys(results(page)[0]!)).toEqual(['id', 'title', 'status', 'publicationDate', 'deadline', 'buyer', 'estimatedValue', 'procedure', 'cpv', 'cpvCodes', 'url']);
  });

  it('serves several requests over one keep-alive connection', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const reused: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      await new Promise<void>((resolve, reject) => {
        const req = request(`${sb.url}${TENDERS}`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume().on('end', resolve);
        });
        req.on('error', reject).end('{"limit":3}');
        reused.push(req.reusedSocket);
      });
    }
    agent.destroy();
    expect(reused).toEqual([false, true, true]);
  });
});

describe('page.total', () => {
  it('is on the first page only and counts up to 10 000', async () => {
    expect((await search({})).json().page.total).toEqual({ count: 2000, capped: false });
    const first = (await search({})).json();
    expect((await search({ cursor: first.page.nextCursor })).json().page.total).toBeNull();
  });

  it.each([
    [10_000, { count: 10_000, capped: false }],
    [10_001, { count: 10_000, capped: true }],
  ])('with %i tenders is %j', async (size, total) => {
    const big = await startSandbox({ size, seed: 1 });
    try {
      expect((await post(big.url, TENDERS, {})).json().page.total).toEqual(total);
      const open = big.truth(TENDERS, { statuses: ['open'] }).length;
      expect((await post(big.url, TENDERS, { statuses: ['open'] })).json().page.total).toEqual({ count: open, capped: false });
    } finally {
      await big.close();
    }
  });

  it('follows inserted tenders', async () => {
    const changing = await startSandbox({ size: 300, seed: 2 });
    try {
      expect((await post(changing.url, TENDERS, {})).json().page.total!.count).toBe(300);
      changing.insert(5);
      expect((await post(changing.url, TENDERS, {})).json().page.total!.count).toBe(305);
    } finally {
      await changing.close();
    }
  });
});

describe('cursors', () => {
  const invalid = { message: 'invalid cursor' };

  it('are bound to filters, sort field and effective order', async () => {
    const cursor = (await search({ sortBy: 'deadline', limit: 5 })).json().page.nextCursor!;
    // The explicit default order is the same query; the limit is not part of it.
    expect((await search({ sortBy: 'deadline', sortOrder: 'asc', limit: 9, cursor })).status).toBe(200);
    for (const changed of [{ sortBy: 'deadline', sortOrder: 'desc' }, { sortBy: 'estimatedValue' }, { sortBy: 'deadline', statuses: ['open'] }, {}]) {
      const res = await search({ ...changed, cursor });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text)).toEqual(invalid);
    }
    const explicit = (await search({ sortOrder: 'desc', limit: 5 })).json().page.nextCursor!;
    expect((await search({ cursor: explicit })).status).toBe(200);
  });

  it('do not depend on the order of filter values or of body keys', async () => {
    const cursor = (await search({ buyerCountries: ['DEU', 'FRA'], statuses: ['open', 'closed'], limit: 5 })).json().page.nextCursor!;
    expect((await search({ cursor, statuses: ['closed', 'open'], buyerCountries: ['FRA', 'DEU'] })).status).toBe(200);
  });

  it('refuse corrupted, forged and foreign cursors', async () => {
    const cursor = (await search({ limit: 5 })).json().page.nextCursor!;
    const [payload, mac] = cursor.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${Buffer.from(JSON.stringify({ ...decoded, i: 'T-0000001' })).toString('base64url')}.${mac}`;
    const other = await startSandbox({ size: 50, seed: 99 });
    try {
      const foreign = (await post(other.url, TENDERS, { limit: 5 })).json().page.nextCursor!;
      for (const bad of [`${cursor}x`, forged, 'garbage', '', foreign]) {
        const res = await search({ cursor: bad });
        expect(res.status).toBe(400);
        expect(JSON.parse(res.text)).toEqual(invalid);
      }
    } finally {
      await other.close();
    }
  });
});

describe('requests the service refuses', () => {
  it.each([
    [{ limit: 0 }, 'limit must be an integer between 1 and 100'],
    [{ limit: 101 }, 'limit must be an integer between 1 and 100'],
    [{ limit: 2.5 }, 'limit must be an integer between 1 and 100'],
    [{ limit: '10' }, 'limit must be an integer between 1 and 100'],
    [{ limit: null }, 'limit must be an integer between 1 and 100'],
    [{ sortBy: 'title' }, 'sortBy must be one of publicationDate, deadline, estimatedValue'],
    [{ sortOrder: 'up' }, 'sortOrder must be asc or desc'],
    [{ buyerCountries: ['de'] }, 'buyerCountries must be an array of three-letter country codes'],
    [{ buyerCountries: 'DEU' }, 'buyerCountries must be an array of three-letter country codes'],
    [{ statuses: ['pending'] }, 'statuses: unknown value "pending" (allowed: open, closed, awarded, cancelled)'],
    [{ minValue: '5' }, 'minValue must be a number'],
    [{ colour: 'red' }, 'unknown field: colour'],
    [[1], 'the request body must be a JSON object'],
    [null, 'the request body must be a JSON object'],
  ])('%j with 400', async (body, message) => {
    const res = await search(body);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ message });
  });

  it('a body that is not JSON with 400, an unknown path with 404, another method with 405', async () => {
    const notJson = await fetch(`${sb.url}${TENDERS}`, { method: 'POST', body: '{"limit":' });
    expect(notJson.status).toBe(400);
    const missing = await fetch(`${sb.url}/api/v1/nowhere`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { message: string }).message).toMatch(/not found/);
    const get = await fetch(`${sb.url}${TENDERS}`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('a body over 1 MiB with 413', async () => {
    expect((await search({ query: 'x'.repeat(1 << 20) })).status).toBe(413);
  });
});

describe('data changing under a reader', () => {
  it('keyset paging neither skips nor repeats while tenders are inserted', async () => {
    const changing = await startSandbox({ size: 600, seed: 8 });
    try {
      for (const body of [{ limit: 50 }, { sortBy: 'deadline', limit: 50 }, { sortBy: 'estimatedValue', sortOrder: 'asc', limit: 30 }]) {
        const before = ids(changing.truth(TENDERS, body));
        const { items } = await walk(changing.url, TENDERS, body, () => changing.insert(20));
        const seen = ids(items);
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen.filter((id) => before.includes(id))).toEqual(before);
      }
    } finally {
      await changing.close();
    }
  });

  it('inserted tenders are the newest, with new ids', async () => {
    const changing = await startSandbox({ size: 100, seed: 8 });
    try {
      const before = changing.truth(TENDERS, {}) as Item[];
      changing.insert(3);
      const after = changing.truth(TENDERS, {}) as Item[];
      expect(after.slice(3)).toEqual(before);
      expect(ids(after.slice(0, 3)).every((id) => !ids(before).includes(id) && id > ids(before).sort().at(-1)!)).toBe(true);
    } finally {
      await changing.close();
    }
  });
});
