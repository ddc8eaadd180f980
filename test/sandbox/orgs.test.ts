import { beforeAll, describe, expect, it } from 'vitest';
import { useSandbox } from '../support/sandbox.js';
import { ORGS, orgTenders, post, TENDERS, walk } from './http.js';

type Org = { id: string; name: string; country: string; tenderCount: number };
const sb = useSandbox({ size: 2000, seed: 5 });
let busiest: Org;

beforeAll(() => {
  busiest = (sb.truth(ORGS, {}) as Org[]).reduce((a, b) => (b.tenderCount > a.tenderCount ? b : a));
});

describe('Search Organisations', () => {
  it('walks every organisation by name, then id, under `organisations`', async () => {
    const first = (await post(sb.url, ORGS, { limit: 17 })).json();
    expect(Object.keys(first)).toEqual(['organisations', 'page']);
    const { items, pages } = await walk(sb.url, ORGS, { limit: 17 });
    const truth = sb.truth(ORGS, {}) as Org[];
    expect(truth.length).toBeGreaterThan(100);
    expect(first.page.total).toEqual({ count: truth.length, capped: false });
    expect(items).toEqual(truth);
    expect(pages).toBe(Math.ceil(truth.length / 17));
    expect(Object.keys(truth[0]!)).toEqual(['id', 'name', 'country', 'tenderCount']);
    expect(truth.reduce((n, o) => n + o.tenderCount, 0)).toBe(2000);
    const names = truth.map((o) => o.name);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('filters by countries and by a case-insensitive part of the name', async () => {
    const body = { countries: ['GRC', 'BGR'], query: 'ΔΉΜΟΣ' };
    const { items } = await walk(sb.url, ORGS, { ...body, limit: 1 });
    expect(items.length).toBeGreaterThan(1);
    expect(items).toEqual(sb.truth(ORGS, body));
    expect(items.every((o) => o.country === 'GRC' && /δήμος/i.test(o.name as string))).toBe(true);
  });

  it('binds cursors to its filters and refuses unknown fields', async () => {
    const cursor = (await post(sb.url, ORGS, { countries: ['DEU'], limit: 2 })).json().page.nextCursor!;
    expect((await post(sb.url, ORGS, { countries: ['DEU'], cursor })).status).toBe(200);
    expect((await post(sb.url, ORGS, { countries: ['FRA'], cursor })).status).toBe(400);
    expect((await post(sb.url, TENDERS, { buyerCountries: ['DEU'], cursor })).status).toBe(400);
    const unknown = await post(sb.url, ORGS, { buyerCountries: ['DEU'] });
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.text)).toEqual({ message: 'unknown field: buyerCountries' });
    expect((await post(sb.url, ORGS, { limit: 101 })).status).toBe(400);
  });
});

describe('Organisation Tenders', () => {
  it.each([
    [{ limit: 7 }],
    [{ limit: 3, sortBy: 'deadline' }],
    [{ limit: 5, sortBy: 'estimatedValue', sortOrder: 'asc', statuses: ['open', 'closed'] }],
  ])('a full walk of %j equals the truth: that buyer\'s tenders only', async (body) => {
    const path = orgTenders(busiest.id);
    const { items } = await walk(sb.url, path, body);
    const truth = sb.truth(path, body);
    expect(items).toEqual(truth);
    expect(items.every((t) => (t.buyer as { id: string }).id === busiest.id)).toBe(true);
    expect(truth).toEqual(sb.truth(TENDERS, body).filter((t) => (t as { buyer: { id: string } }).buyer.id === busiest.id));
  });

  it('counts the buyer\'s tenders on the first page', async () => {
    const page = (await post(sb.url, orgTenders(busiest.id), {})).json();
    expect(Object.keys(page)).toEqual(['tenders', 'page']);
    expect(page.page.total).toEqual({ count: busiest.tenderCount, capped: false });
  });

  it('binds cursors to the organisation and the operation', async () => {
    const other = (sb.truth(ORGS, {}) as Org[]).find((o) => o.id !== busiest.id && o.tenderCount > 2)!;
    const cursor = (await post(sb.url, orgTenders(busiest.id), { limit: 2 })).json().page.nextCursor!;
    expect((await post(sb.url, orgTenders(busiest.id), { cursor })).status).toBe(200);
    expect((await post(sb.url, orgTenders(other.id), { cursor })).status).toBe(400);
    expect((await post(sb.url, TENDERS, { cursor })).status).toBe(400);
    const searchCursor = (await post(sb.url, TENDERS, { limit: 2 })).json().page.nextCursor!;
    expect((await post(sb.url, orgTenders(busiest.id), { cursor: searchCursor })).status).toBe(400);
  });

  it('404s an unknown organisation, also one whose id does not decode', async () => {
    const missing = await post(sb.url, orgTenders('ORG-XXX-0001'), {});
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text)).toEqual({ message: 'organisation not found: ORG-XXX-0001' });
    expect((await post(sb.url, '/api/v1/organisations/%E0%A4%A/tenders/search', {})).status).toBe(404);
    expect((await post(sb.url, orgTenders(busiest.id), { limit: 0 })).status).toBe(400);
  });
});
