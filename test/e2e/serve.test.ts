import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import { runCli } from '../support/cli.js';
import { useSandbox } from '../support/sandbox.js';
import { postgres, POSTGRES_MISSING } from '../support/postgres.js';
import { post, spawnServe, type Replica, withReplica } from '../support/serve.js';
import { testDir } from '../support/test-context.js';

/**
 * `tenders serve` as a team runs it: a SQLite copy synced from the sandbox,
 * the server spawned on a free port, asked over real HTTP, and compared with
 * the sandbox itself answering the same bodies.
 */
const sb = useSandbox({ size: 1500, seed: 17 });
const TENDERS = '/api/v1/tenders/search';
const SORTS = [
  {},
  { sortBy: 'publicationDate', sortOrder: 'asc' },
  { sortBy: 'deadline' },
  { sortBy: 'deadline', sortOrder: 'desc' },
  { sortBy: 'estimatedValue' },
  { sortBy: 'estimatedValue', sortOrder: 'asc' },
];

async function syncedCopy(db = join(testDir(), 'copy.db')): Promise<string> {
  const r = await runCli(['sync', 'deu', '-c', 'DEU', '--db', db], sb.url);
  expect(r.code, r.stderr).toBe(0);
  return db;
}

/** Every page of `body` at `url`: the documents in order, and the first page's total. */
async function walk(url: string, path: string, body: Record<string, unknown>, key = 'tenders') {
  const items: unknown[] = [];
  let cursor: string | undefined;
  let total: unknown;
  for (;;) {
    const r = await post(url, path, { ...body, ...(cursor ? { cursor } : {}) });
    expect(r.status, r.text).toBe(200);
    const page = parseJson(r.text) as Record<string, unknown[]> & { page: { nextCursor: string | null; total: unknown } };
    if (cursor === undefined) total = page.page.total;
    else expect(page.page.total).toBeNull();
    items.push(...page[key]!);
    if (page.page.nextCursor === null) return { items, total };
    cursor = page.page.nextCursor;
  }
}


/** The replica of `db` answers what the sandbox answers, for the copy's tenders. */
async function faithful(db: string): Promise<Replica> {
  let running: Replica | undefined;
  await withReplica(['--db', db], async (replica) => {
    running = replica;
    expect(replica.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const sort of SORTS) {
      for (const limit of [7, 100]) {
        const body = { ...sort, limit, buyerCountries: ['DEU'] };
        const served = await walk(replica.url, TENDERS, body);
        const upstream = await walk(sb.url, TENDERS, body);
        expect(served.items.length).toBeGreaterThan(0);
        expect(served).toEqual(upstream);
      }
    }
    const org = (sb.truth(TENDERS, { buyerCountries: ['DEU'] })[0] as { buyer: { id: string } }).buyer.id;
    const path = `/api/v1/organisations/${encodeURIComponent(org)}/tenders/search`;
    expect(await walk(replica.url, path, { sortBy: 'deadline', limit: 5 })).toEqual(await walk(sb.url, path, { sortBy: 'deadline', limit: 5 }));
    const orgs = await walk(replica.url, '/api/v1/organisations/search', { countries: ['DEU'], limit: 4 }, 'organisations');
    const upstream = await walk(sb.url, '/api/v1/organisations/search', { countries: ['DEU'], limit: 4 }, 'organisations');
    expect(orgs.items).toEqual(upstream.items.filter((o) => (o as { tenderCount: number }).tenderCount > 0));
    // One access-log line per request: method, path, status, bytes, ms.
    expect(replica.stderr()).toMatch(/^POST \/api\/v1\/tenders\/search 200 \d+ \d+\.\dms$/m);
  });
  return running!;
}

describe('tenders serve over a SQLite copy', () => {
  it("answers the sandbox's tenders for every sort, order and page size, paged to the end, and its organisations", async () => {
    await faithful(await syncedCopy());
  });

  it('refuses as the sandbox does, and answers errors as {"message"} with safe headers', async () => {
    const db = await syncedCopy();
    await withReplica(['--db', db, '-q'], async (replica) => {
      const first = parseJson((await post(replica.url, TENDERS, { limit: 2 })).text) as { page: { nextCursor: string } };
      for (const body of [{ limit: 0 }, { limit: 101 }, { sortBy: 'title' }, { sortOrder: 'up' }, { cursor: 'forged.cursor' }, { limit: 2, sortBy: 'deadline', cursor: first.page.nextCursor }, '{not json', []]) {
        const mine = await post(replica.url, TENDERS, body);
        const theirs = await post(sb.url, TENDERS, body);
        expect([mine.status, mine.text]).toEqual([theirs.status, theirs.text]);
        expect(mine.headers.get('x-content-type-options')).toBe('nosniff');
        expect(mine.headers.get('referrer-policy')).toBe('no-referrer');
        expect(mine.headers.get('cache-control')).toBe('no-cache');
      }
      expect((await post(replica.url, '/api/v1/nothing', {})).status).toBe(404);
      const get = await fetch(replica.url + TENDERS);
      expect([get.status, get.headers.get('allow'), await get.json()]).toEqual([405, 'POST', { message: 'use POST' }]);
      const form = await post(replica.url, TENDERS, 'limit=2', { 'content-type': 'application/x-www-form-urlencoded' });
      expect(form.status).toBe(415);
      const big = await post(replica.url, TENDERS, JSON.stringify({ q: 'x'.repeat(70_000) }));
      expect([big.status, JSON.parse(big.text).message]).toEqual([413, 'request body too large (at most 65536 bytes)']);
      const fts = await post(replica.url, TENDERS, { q: '"unterminated' });
      expect(fts.status).toBe(400);
      expect(JSON.parse(fts.text).message).toMatch(/full-text|quote|"/i);
      expect(await (await fetch(`${replica.url}/healthz`)).json()).toEqual({ status: 'ok' });
      expect(await (await fetch(`${replica.url}/readyz`)).json()).toMatchObject({ status: 'ready', syncs: [{ name: 'deu' }] });
    });
  });

  it('answers the additive fields from the filter table, with page.total.exact on request', async () => {
    const db = await syncedCopy();
    await withReplica(['--db', db, '-q'], async (replica) => {
      const body = { minValueEur: 100000, deadlineFrom: '2024-12-01', sortBy: 'deadline', exactTotal: true, limit: 100 };
      const served = await walk(replica.url, TENDERS, body);
      const local = await runCli(['export', '--local', '--db', db, '--min-value', '100000', '--deadline-after', '2024-12-01', '--sort', 'deadline', '-f', 'ndjson'], undefined);
      expect(local.code, local.stderr).toBe(0);
      const expected = local.stdout.split('\n').filter(Boolean).map((line) => parseJson(line));
      expect(served.items).toEqual(expected);
      expect(served.total).toEqual({ count: expected.length, capped: false, exact: expected.length });
      const bad = await post(replica.url, TENDERS, { deadlineFrom: 'soon' });
      expect(bad.status).toBe(400);
      expect(JSON.parse(bad.text).message).toMatch(/^deadlineFrom/);
    });
  });

  it('is a service for the CLI: search and export --base-url the replica equal export --local', async () => {
    const db = await syncedCopy();
    await withReplica(['--db', db, '-q'], async (replica) => {
      const local = await runCli(['export', '--local', '--db', db, '--sort', 'estimatedValue', '-f', 'ndjson'], undefined);
      const remote = await runCli(['export', '-c', 'DEU', '--sort', 'estimatedValue', '-f', 'ndjson'], replica.url);
      expect(remote.code, remote.stderr).toBe(0);
      expect(local.stdout.split('\n').length).toBeGreaterThan(100);
      expect(remote.stdout).toBe(local.stdout);
      const search = await runCli(['search', '-c', 'DEU', '--all', '-f', 'ndjson'], replica.url);
      const localSearch = await runCli(['search', '--local', '--db', db, '--all', '-f', 'ndjson'], undefined);
      expect(search.code, search.stderr).toBe(0);
      expect(search.stdout).toBe(localSearch.stdout);
    });
  });

  it('serves the page at / over the same copy: the rows search --local gives, a tender with its story, HTML with its CSP, the API beside it', async () => {
    const db = await syncedCopy();
    await withReplica(['--db', db, '-q'], async (replica) => {
      const page = await fetch(`${replica.url}/?q=krank*&sortBy=deadline`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
      const text = await page.text();
      const local = await runCli(['search', '--local', '--db', db, 'krank*', '--sort', 'deadline', '-n', '25', '-f', 'ndjson'], undefined);
      const ids = local.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { id: string }).id);
      expect(ids.length).toBeGreaterThan(0);
      expect([...text.matchAll(/href="\/tenders\/([^"]+)"/g)].map((m) => decodeURIComponent(m[1]!))).toEqual(ids);
      const tender = await fetch(`${replica.url}/tenders/${encodeURIComponent(ids[0]!)}`);
      expect(tender.status).toBe(200);
      expect(await tender.text()).toContain(ids[0]);
      expect((await fetch(`${replica.url}/tenders/no-such-tender`)).status).toBe(404);
      expect((await post(replica.url, TENDERS, { limit: 1 })).status).toBe(200);
      expect((await post(replica.url, '/nowhere', {})).status).toBe(404);
    });
  });

  it('listens beyond loopback only with a token or --public; a token is required then, missing or wrong alike', async () => {
    const db = await syncedCopy();
    const dry = await runCli(['serve', '--db', db, '--listen', '0.0.0.0:0', '--public', '--dry-run'], undefined);
    expect([dry.code, dry.stdout]).toEqual([0, `would serve ${db} at http://0.0.0.0:0 for anyone (--public)\n`]);
    const refused = await runCli(['serve', '--db', db, '--listen', '0.0.0.0:0'], undefined);
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringMatching(/^tenders: --listen 0\.0\.0\.0:0 reaches beyond this machine/)]);
    const tokenFile = join(testDir(), 'token');
    writeFileSync(tokenFile, 's3cret-token\n');
    const replica = await spawnServe(['--db', db, '--listen', '0.0.0.0:0', '--token-file', tokenFile, '-q']);
    try {
      const url = replica.url.replace('0.0.0.0', '127.0.0.1');
      const missing = await post(url, TENDERS, {});
      const wrong = await post(url, TENDERS, {}, { authorization: 'Bearer s3cret-tokem' });
      expect([missing.status, missing.text]).toEqual([401, '{"message":"a bearer token is required"}']);
      expect([wrong.status, wrong.text]).toEqual([missing.status, missing.text]);
      expect((await post(url, TENDERS, {}, { authorization: 'Bearer s3cret-token' })).status).toBe(200);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      // Ctrl-C ends a server as SIGTERM does: in-flight requests finish, exit 0.
      expect(await replica.stop('SIGINT')).toBe(0);
    }
  });
});

describe.skipIf(POSTGRES_MISSING)('tenders serve over a PostgreSQL copy', () => {
  it("answers the sandbox's tenders for every sort, order and page size, and never shows the password", async () => {
    const url = await (await postgres()).createDatabase('serve');
    const replica = await faithful(await syncedCopy(url));
    expect(replica.stderr()).not.toContain(new URL(url).password);
    expect(replica.stderr()).not.toContain(decodeURIComponent(new URL(url).password));
  });
});
