import { beforeAll, describe, expect, it } from 'vitest';
import { useSandbox } from '../support/sandbox.js';
import { ndjson, runCli } from '../support/cli.js';

const ORGS = '/api/v1/organisations/search';
const sb = useSandbox({ size: 4000, seed: 9 });

type Org = { id: string; name: string; country: string; tenderCount: number };
type Tender = Record<string, unknown> & { buyer: { id: string } };

describe('tenders orgs search', () => {
  it('pages through every organisation with --all', async () => {
    const before = sb.requests.length;
    const r = await runCli(['orgs', 'search', '--all', '-n', '40'], sb.url);
    expect(r.code).toBe(0);
    const truth = sb.truth(ORGS, {}) as Org[];
    expect(truth.length).toBeGreaterThan(40);
    expect(ndjson(r.stdout)).toEqual(truth);
    const bodies = sb.requests.slice(before).map((q) => q.body as Record<string, unknown>);
    expect(bodies).toHaveLength(Math.ceil(truth.length / 40));
    expect(bodies.slice(1).every((b) => typeof b.cursor === 'string' && b.limit === 40)).toBe(true);
  });

  it('sends --query, --country and --filter in the body', async () => {
    const before = sb.requests.length;
    const r = await runCli(['orgs', 'search', '--query', 'a', '-c', 'deu,fra', '-f', 'json'], sb.url);
    expect(r.code).toBe(0);
    expect(sb.requests[before]!.body).toEqual({ countries: ['DEU', 'FRA'], query: 'a' });
    const orgs = JSON.parse(r.stdout) as Org[];
    expect(orgs).toEqual(sb.truth(ORGS, { countries: ['DEU', 'FRA'], query: 'a' }).slice(0, 25));
    expect(orgs.every((o) => ['DEU', 'FRA'].includes(o.country) && /a/i.test(o.name))).toBe(true);
  });

  it('prints a table with the organisation columns', async () => {
    const r = await runCli(['orgs', 'search', '-f', 'table', '-n', '3'], sb.url);
    expect(r.stdout.split('\n')[0]).toMatch(/^id\s+name\s+country\s+tenders$/);
  });

  it('rejects a forged cursor with the invalid-cursor advice', async () => {
    const r = await runCli(['orgs', 'search', '--cursor', 'forged'], sb.url);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/start again without --cursor/);
  });
});

describe('tenders orgs tenders ORG_ID', () => {
  let org: Org;
  beforeAll(() => {
    org = (sb.truth(ORGS, {}) as Org[]).reduce((a, b) => (b.tenderCount > a.tenderCount ? b : a));
  });
  const path = () => `/api/v1/organisations/${encodeURIComponent(org.id)}/tenders/search`;

  it.each([
    ['deadline', 'asc'],
    ['estimatedValue', 'desc'],
    ['publicationDate', 'asc'],
  ])('walks one buyer\'s tenders sorted by %s %s, with the exclusions of 3.2', async (sort, order) => {
    const r = await runCli(['orgs', 'tenders', org.id, '--sort', sort, '--order', order, '--all', '-n', '7'], sb.url);
    expect(r.code).toBe(0);
    const body = { sortBy: sort, sortOrder: order };
    const truth = sb.truth(path(), body) as Tender[];
    expect(ndjson(r.stdout)).toEqual(truth);
    expect(truth.every((t) => t.buyer.id === org.id)).toBe(true);
    if (sort === 'deadline') expect(truth.every((t) => t.deadline !== null)).toBe(true);
    if (sort === 'estimatedValue') expect(truth.every((t) => t.estimatedValue !== null)).toBe(true);
    if (sort !== 'publicationDate') expect(truth.length).toBeLessThan(org.tenderCount);
  });

  it('an unknown organisation is exit 1 with the service message', async () => {
    const r = await runCli(['orgs', 'tenders', 'ORG-NOPE-0000'], sb.url);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: the service answered 404 to POST \/api\/v1\/organisations\/ORG-NOPE-0000\/tenders\/search: organisation not found/);
  });

  it('a cursor from another organisation is an invalid cursor', async () => {
    const other = (sb.truth(ORGS, {}) as Org[]).find((o) => o.id !== org.id && o.tenderCount > 2)!;
    const res = await fetch(`${sb.url}/api/v1/organisations/${other.id}/tenders/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ limit: 1 }),
    });
    const cursor = ((await res.json()) as { page: { nextCursor: string } }).page.nextCursor;
    const r = await runCli(['orgs', 'tenders', org.id, '-n', '1', '--cursor', cursor], sb.url);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/start again without --cursor/);
  });

  it('finds the results under whatever key the service uses, and --path overrides the path', async () => {
    sb.setFaults({ resultsKey: 'items' });
    const r = await runCli(['orgs', 'tenders', org.id, '-n', '5'], sb.url);
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout)).toEqual(sb.truth(path(), {}).slice(0, 5));
    sb.setFaults({});
    const before = sb.requests.length;
    const custom = await runCli(['orgs', 'tenders', org.id, '--path', '/api/v1/organisations/{id}/tenders/search', '-n', '2'], sb.url);
    expect(custom.code).toBe(0);
    const viaEnv = await runCli(['orgs', 'search', '-n', '2'], sb.url, { env: { TENDERS_ORGS_SEARCH_PATH: '/api/v1/nowhere' } });
    expect(viaEnv.code).toBe(1);
    expect(sb.requests.slice(before).map((q) => q.path)).toEqual([path(), '/api/v1/nowhere']);
  });

  it('usage errors for the org commands exit 2', async () => {
    for (const args of [['orgs', 'tenders'], ['orgs', 'search', '--query', ' '], ['orgs', 'search', '--path', 'no-slash'], ['orgs', 'tenders', 'X', '--sort', 'name']]) {
      const r = await runCli(args, sb.url);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^tenders: /);
    }
  });
});
