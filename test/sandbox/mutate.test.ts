import { afterEach, describe, expect, it } from 'vitest';
import { EUR_RATES } from '../../src/sandbox/catalogue.js';
import type { Tender } from '../../src/sandbox/data.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { ids, MUTATE, ORGS, orgTenders, post, results, TENDERS, walk } from './http.js';

const started: Sandbox[] = [];
async function sandbox(size: number, seed: number, cache = false): Promise<Sandbox> {
  const sb = await startSandbox({ size, seed, cache });
  started.push(sb);
  return sb;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((sb) => sb.close()));
});

const byId = (sb: Sandbox) => new Map((sb.truth(TENDERS, {}) as Tender[]).map((t) => [t.id, t]));
const total = async (sb: Sandbox, body: object) => (await post(sb.url, TENDERS, body)).json().page.total;
const sortedIds = (list: string[]) => [...list].sort();

describe('Sandbox.mutate', () => {
  it('is deterministic for a seed and the same data, and another seed picks others', async () => {
    const [a, b, c] = await Promise.all([sandbox(1000, 3), sandbox(1000, 3), sandbox(1000, 3)]);
    const m = { insert: 4, update: 6, close: 5, remove: 3, seed: 42 };
    const ra = a.mutate(m);
    expect(b.mutate(m)).toEqual(ra);
    expect(b.truth(TENDERS, {})).toEqual(a.truth(TENDERS, {}));
    const rc = c.mutate({ ...m, seed: 43 });
    expect(rc.updated).not.toEqual(ra.updated);
    expect(rc.inserted).toEqual(ra.inserted); // ids are the next ones either way
    // A second call without a seed on the same sandbox moves on: other tenders change.
    const again = a.mutate({ update: 6, seed: 42 });
    expect(again.updated).not.toEqual(ra.updated);
  });

  it('answers the ids it touched, in id order, each in one list only', async () => {
    const sb = await sandbox(1000, 3);
    const r = sb.mutate({ insert: 5, update: 10, close: 10, remove: 10, seed: 7 });
    for (const list of Object.values(r)) expect(list).toEqual(sortedIds(list));
    expect(r.inserted).toHaveLength(5);
    expect(r.updated).toHaveLength(10);
    expect(r.closed).toHaveLength(10);
    expect(r.removed).toHaveLength(10);
    const all = [...r.inserted, ...r.updated, ...r.closed, ...r.removed];
    expect(new Set(all).size).toBe(all.length);
    expect(sb.mutate({})).toEqual({ inserted: [], updated: [], closed: [], removed: [] });
  });

  it('inserts tenders published after every other, first in a walk by publicationDate desc', async () => {
    const sb = await sandbox(500, 2);
    sb.insert(2); // on the newest day present
    const before = sb.truth(TENDERS, {}) as Tender[];
    const newestBefore = before[0]!.publicationDate;
    const { inserted } = sb.mutate({ insert: 4 });
    const after = sb.truth(TENDERS, {}) as Tender[];
    expect(ids(after.slice(0, 4))).toEqual([...inserted].reverse());
    expect(after.slice(4)).toEqual(before);
    expect(after.slice(0, 4).every((t) => t.publicationDate > newestBefore)).toBe(true);
    expect(inserted.every((id) => id > sortedIds(ids(before)).at(-1)!)).toBe(true);
    expect(await total(sb, {})).toEqual({ count: 506, capped: false });
    // The next insert is newer still, and insert() joins the newest day.
    const { inserted: later } = sb.mutate({ insert: 1 });
    sb.insert(1);
    const latest = sb.truth(TENDERS, { limit: 1 }) as Tender[];
    expect(latest[1]!.id).toBe(later[0]);
    expect(latest[0]!.publicationDate).toBe(latest[1]!.publicationDate);
    expect(latest[1]!.publicationDate > after[0]!.publicationDate).toBe(true);
  });

  it('updates open tenders only, spread across the data, changing deadline, value and/or title', async () => {
    const sb = await sandbox(2000, 4);
    const before = byId(sb);
    const open = [...before.values()].filter((t) => t.status === 'open').map((t) => t.id);
    const { updated } = sb.mutate({ update: 40, seed: 9 });
    expect(updated).toHaveLength(40);
    const after = byId(sb);
    const changed = { deadline: 0, estimatedValue: 0, title: 0 };
    const combinations = new Set<string>();
    for (const id of updated) {
      const [was, now] = [before.get(id)!, after.get(id)!];
      expect(was.status).toBe('open');
      expect(now.status).toBe('open');
      const fields = (['deadline', 'estimatedValue', 'title'] as const).filter((f) => JSON.stringify(was[f]) !== JSON.stringify(now[f]));
      expect(fields.length, id).toBeGreaterThan(0);
      for (const f of fields) changed[f]++;
      combinations.add(fields.join());
      expect({ ...now, deadline: was.deadline, estimatedValue: was.estimatedValue, title: was.title }).toEqual(was);
      if (now.deadline !== null) expect(now.deadline > now.publicationDate).toBe(true);
      if (now.estimatedValue !== null) {
        const { amount, currency, amountEur } = now.estimatedValue;
        expect(amount).toBeGreaterThan(0);
        expect(amountEur).toBe(Math.round(amount * EUR_RATES[currency]! * 100) / 100);
      }
    }
    // Every field changes on some tenders and not on others.
    for (const n of Object.values(changed)) {
      expect(n).toBeGreaterThan(0);
      expect(n).toBeLessThan(40);
    }
    expect(combinations.size).toBeGreaterThan(3);
    // Spread: from the first tenth of the open tenders to the last.
    const at = updated.map((id) => open.indexOf(id));
    expect(Math.min(...at)).toBeLessThan(open.length / 10);
    expect(Math.max(...at)).toBeGreaterThan((open.length * 9) / 10);
    // Nothing else changed.
    for (const [id, t] of before) if (!updated.includes(id)) expect(after.get(id)).toEqual(t);
  });

  it('closes open tenders: an open query no longer finds them, its total drops', async () => {
    const sb = await sandbox(1000, 5);
    const open = { statuses: ['open'], limit: 100 };
    const was = (await total(sb, open))!.count;
    const { closed } = sb.mutate({ close: 12, seed: 3 });
    expect(closed).toHaveLength(12);
    const after = byId(sb);
    expect(closed.every((id) => after.get(id)!.status === 'closed')).toBe(true);
    expect(await total(sb, open)).toEqual({ count: was - 12, capped: false });
    const walked = ids((await walk(sb.url, TENDERS, open)).items);
    expect(walked).toHaveLength(was - 12);
    expect(walked.some((id) => closed.includes(id))).toBe(false);
  });

  it('removes tenders from every search, count and organisation', async () => {
    const sb = await sandbox(800, 6);
    const { removed } = sb.mutate({ remove: 25, seed: 1 });
    const after = sb.truth(TENDERS, {});
    expect(after).toHaveLength(775);
    expect(ids(after).some((id) => removed.includes(id))).toBe(false);
    expect(await total(sb, {})).toEqual({ count: 775, capped: false });
    const orgs = sb.truth(ORGS, {}) as { tenderCount: number }[];
    expect(orgs.reduce((n, o) => n + o.tenderCount, 0)).toBe(775);
    for (const body of [{ sortBy: 'deadline', limit: 100 }, { sortBy: 'estimatedValue', limit: 100 }]) {
      expect(ids((await walk(sb.url, TENDERS, body)).items).some((id) => removed.includes(id))).toBe(false);
    }
  });

  it('asks for more than there is: takes what there is', async () => {
    const sb = await sandbox(40, 7);
    const open = sb.truth(TENDERS, { statuses: ['open'] }).length;
    const r = sb.mutate({ update: 1000, close: 1000, remove: 1000 });
    expect(r.updated).toHaveLength(open);
    expect(r.closed).toHaveLength(0);
    expect(r.removed).toHaveLength(40 - open);
    expect(sb.truth(TENDERS, {})).toHaveLength(open);
  });

  it('refuses what is not a mutation', async () => {
    const sb = await sandbox(10, 1);
    expect(() => sb.mutate({ insert: -1 })).toThrow(/insert must be a whole number/);
    expect(() => sb.mutate({ update: 1.5 })).toThrow(/update must be a whole number/);
    expect(() => sb.mutate({ colour: 1 } as never)).toThrow(/unknown field: colour/);
    expect(() => sb.mutate({ insert: 1_000_000 })).toThrow(/at most/);
  });
});

describe('indexes and caches after mutations', () => {
  const SORTS = [
    {},
    { sortOrder: 'asc' },
    { sortBy: 'deadline' },
    { sortBy: 'deadline', sortOrder: 'desc' },
    { sortBy: 'estimatedValue' },
    { sortBy: 'estimatedValue', sortOrder: 'asc', statuses: ['open'] },
  ];

  it('every walk still equals the truth, also of an organisation', async () => {
    const sb = await sandbox(1500, 8);
    // Few inserts go in one by one, many in one pass per index: both kinds here.
    for (let seed = 1; seed <= 5; seed++) sb.mutate({ insert: seed === 3 ? 400 : 20, update: 30, close: 15, remove: 15, seed });
    sb.insert(100);
    for (const sort of SORTS) {
      const body = { ...sort, limit: 100 };
      expect((await walk(sb.url, TENDERS, body)).items).toEqual(sb.truth(TENDERS, body));
    }
    const org = (sb.truth(ORGS, {}) as { id: string; tenderCount: number }[]).reduce((a, b) => (b.tenderCount > a.tenderCount ? b : a));
    const path = orgTenders(org.id);
    const { items } = await walk(sb.url, path, { sortBy: 'estimatedValue', limit: 5 });
    expect(items).toEqual(sb.truth(path, { sortBy: 'estimatedValue' }));
    expect((await post(sb.url, path, {})).json().page.total!.count).toBe(org.tenderCount);
  });

  it('keyset paging neither skips nor repeats a tender that stays put while the data changes between pages', async () => {
    for (const sort of SORTS.slice(0, 5)) {
      const sb = await sandbox(1200, 9);
      const body = { ...sort, limit: 50 };
      const before = ids(sb.truth(TENDERS, body));
      const seen: string[] = [];
      const removed = new Set<string>();
      const moved = new Set<string>();
      let cursor: string | null = null;
      let seed = 0;
      do {
        const page = (await post(sb.url, TENDERS, cursor ? { ...body, cursor } : body)).json();
        const pageIds = ids(results(page));
        // Nothing removed before this page was asked for is on it.
        expect(pageIds.filter((id) => removed.has(id))).toEqual([]);
        seen.push(...pageIds);
        cursor = page.page.nextCursor;
        const r = sb.mutate({ insert: 5, update: 5, close: 3, remove: 3, seed: ++seed });
        for (const id of r.removed) removed.add(id);
        for (const id of [...r.updated, ...r.removed]) moved.add(id);
      } while (cursor);
      // Tenders that were neither updated (their sort key may have moved) nor removed: each once, in order.
      const stayed = before.filter((id) => !moved.has(id));
      expect(seen.filter((id) => stayed.includes(id))).toEqual(stayed);
      expect(moved.size).toBeGreaterThan(0);
    }
  });

  it('the count cache and the --cache response memo see every change', async () => {
    const sb = await sandbox(600, 10, true);
    const open = { statuses: ['open'] };
    const first = async (body: object) => (await post(sb.url, TENDERS, body)).json();
    const was = (await first(open)).page.total!.count;
    await first(open); // memoised now
    sb.mutate({ close: 4 });
    expect((await first(open)).page.total!.count).toBe(was - 4);
    const { inserted } = sb.mutate({ insert: 2 });
    const page = await first({});
    expect(ids(results(page)).slice(0, 2)).toEqual([...inserted].reverse());
    expect(page.page.total!.count).toBe(602);
    const { updated } = sb.mutate({ update: 600 }); // every open tender
    const byValue = { sortBy: 'estimatedValue', limit: 100 };
    expect((await walk(sb.url, TENDERS, byValue)).items).toEqual(sb.truth(TENDERS, byValue));
    expect(updated.length).toBeGreaterThan(50);
  });
});

describe('POST /__sandbox/mutate', () => {
  it('mutates as Sandbox.mutate does, outside the request log and the fault counts', async () => {
    const [a, b] = await Promise.all([sandbox(700, 11), sandbox(700, 11)]);
    a.setFaults({ errorEvery: 1, latencyMs: 100_000 });
    const m = { insert: 3, update: 4, close: 2, remove: 1, seed: 5 };
    const res = await post(a.url, MUTATE, m);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(JSON.parse(res.text)).toEqual(b.mutate(m));
    expect(Object.keys(JSON.parse(res.text) as object)).toEqual(['inserted', 'updated', 'closed', 'removed']);
    expect(a.truth(TENDERS, {})).toEqual(b.truth(TENDERS, {}));
    expect(a.requests).toEqual([]);
    a.setFaults({ errorEvery: 2 });
    await post(a.url, MUTATE, {});
    expect((await post(a.url, TENDERS, {})).status).toBe(200);
    expect((await post(a.url, TENDERS, {})).status).toBe(503);
    expect(a.requests.map((r) => r.n)).toEqual([1, 2]);
  });

  it.each([
    [{ insert: 'many' }, 'insert must be a whole number, 0 or more'],
    [{ remove: -2 }, 'remove must be a whole number, 0 or more'],
    [{ delete: 1 }, 'unknown field: delete (allowed: insert, update, close, remove, seed)'],
    [[1], 'the request body must be a JSON object'],
  ])('refuses %j with 400', async (body, message) => {
    const sb = await sandbox(50, 1);
    const res = await post(sb.url, MUTATE, body);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ message });
    expect(sb.truth(TENDERS, {})).toHaveLength(50);
  });

  it('answers 405 to another method and 400 to a body that is not JSON', async () => {
    const sb = await sandbox(50, 1);
    const get = await fetch(`${sb.url}${MUTATE}`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await fetch(`${sb.url}${MUTATE}`, { method: 'POST', body: '{"insert":' })).status).toBe(400);
  });
});
