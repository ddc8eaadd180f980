import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import { runCli } from '../support/cli.js';
import { postgres, POSTGRES_MISSING } from '../support/postgres.js';
import { useSandbox } from '../support/sandbox.js';
import { post, spawnServe, withReplica } from '../support/serve.js';
import { testDir } from '../support/test-context.js';

/**
 * `tenders serve` beyond the service's searches, as a team runs it: a copy
 * synced twice from the sandbox (with changes between), the built bin spawned
 * on a free port, over SQLite and over PostgreSQL.
 */
const sb = useSandbox({ size: 900, seed: 31 });
const TENDERS = '/api/v1/tenders/search';
const CHANGES = '/api/v1/changes/search';
let seed = 100;

type Page = Record<string, unknown[]> & { page: { nextCursor: string | null; total: unknown } };
type Change = { kind: string; field: string | null; old?: unknown; new?: unknown; at: string; sync: string; tenderId: string };

const engines = [
  { name: 'SQLite', copy: async () => join(testDir(), 'copy.db') },
  ...(POSTGRES_MISSING ? [] : [{ name: 'PostgreSQL', copy: async () => (await postgres()).createDatabase('serveapi') }]),
];

/** Two syncs (deu, fra), then the sandbox changes and both run again: a copy with history. */
async function copyWithHistory(db: string): Promise<void> {
  for (const [name, country] of [['deu', 'DEU'], ['fra', 'FRA']]) expect((await runCli(['sync', name!, '-c', country!, '--db', db], sb.url)).code).toBe(0);
  sb.mutate({ insert: 60, update: 60, close: 20, remove: 20, seed: ++seed });
  for (const name of ['deu', 'fra']) {
    const r = await runCli(['sync', name, '--db', db], sb.url);
    expect(r.code, r.stderr).toBe(0);
  }
}


/** Every page of `body` at `path`, each page asked of the next of `urls` in turn. */
async function walk(urls: string[], path: string, body: Record<string, unknown>, key: string): Promise<unknown[]> {
  const items: unknown[] = [];
  let cursor: string | null = null;
  for (let i = 0; ; i++) {
    const r = await post(urls[i % urls.length]!, path, { ...body, ...(cursor ? { cursor } : {}) });
    expect(r.status, r.text).toBe(200);
    const page = parseJson(r.text) as Page;
    items.push(...page[key]!);
    cursor = page.page.nextCursor;
    if (cursor === null) return items;
  }
}

/** `tenders changes` of the copy (oldest first), each as the API writes a change. */
async function cliChanges(db: string, args: string[] = []): Promise<string[]> {
  const r = await runCli(['changes', ...args, '--db', db, '-f', 'ndjson'], undefined);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const { at, sync, id, kind, field, old, new: now } = parseJson(line) as Record<string, unknown>;
      return JSON.stringify({ kind, field, old, new: now, at, sync, tenderId: id });
    });
}

describe.each(engines)('tenders serve over a $name copy: a tender, the changes, --sync', ({ copy }) => {
  it('a tender with its history as the copy holds it; the changes newest first, paged to the end, as tenders changes gives them', async () => {
    const db = await copy();
    await copyWithHistory(db);
    await withReplica(['--db', db, '-q'], async (replica) => {
      const all = (await walk([replica.url], CHANGES, { limit: 4 }, 'changes')) as Change[];
      expect(all.length).toBeGreaterThan(8);
      expect(all.map((c) => JSON.stringify(c)).sort()).toEqual((await cliChanges(db)).sort());
      expect(all.map((c) => c.at)).toEqual(all.map((c) => c.at).sort().reverse());
      const changed = all.find((c) => c.kind === 'changed')!;
      const gone = all.find((c) => c.kind === 'gone')!;

      const r = await fetch(`${replica.url}/api/v1/tenders/${encodeURIComponent(changed.tenderId)}`);
      const text = await r.text();
      expect(r.status, text).toBe(200);
      const story = parseJson(text) as { tender: { id: string }; firstSeen: string; goneAt: string | null; history: Change[] };
      const local = await runCli(['search', '--local', '--db', db, '--all', '-f', 'ndjson'], undefined);
      const line = local.stdout.split('\n').find((l) => l.startsWith(`{"id":${JSON.stringify(changed.tenderId)},`));
      expect(text).toContain(`"tender":${line}`);
      expect(story.goneAt).toBeNull();
      expect(story.history.map((h) => JSON.stringify({ ...h, tenderId: changed.tenderId })).sort()).toEqual(
        (await cliChanges(db, ['--id', changed.tenderId])).sort(),
      );
      const wentAway = parseJson(await (await fetch(`${replica.url}/api/v1/tenders/${encodeURIComponent(gone.tenderId)}`)).text()) as { goneAt: string | null };
      expect(wentAway.goneAt).not.toBeNull();
      const hostile = "T'; DROP TABLE tenders; --";
      const missing = await fetch(`${replica.url}/api/v1/tenders/${encodeURIComponent(hostile)}`);
      expect([missing.status, await missing.json()]).toEqual([404, { message: `tender not found: ${hostile}` }]);

      const gones = (await walk([replica.url], CHANGES, { kind: 'gone', sync: 'deu', limit: 2 }, 'changes')) as Change[];
      expect(gones.length).toBeGreaterThan(0);
      expect(gones.map((c) => JSON.stringify(c)).sort()).toEqual((await cliChanges(db, ['deu'])).filter((c) => c.includes('"kind":"gone"')).sort());
      const bad = await post(replica.url, CHANGES, { since: 'last week' });
      expect([bad.status, (JSON.parse(bad.text) as { message: string }).message]).toEqual([400, expect.stringMatching(/^since takes/)]);
      // The searches still answer beside them.
      expect((await post(replica.url, TENDERS, { limit: 1 })).status).toBe(200);
    });

    // --sync fra: only France's tenders, organisations and changes; a German tender is not there.
    await withReplica(['--db', db, '-q', '--sync', 'fra'], async (replica) => {
      const tenders = (await walk([replica.url], TENDERS, { limit: 100 }, 'tenders')) as { id: string; buyer: { country: string } }[];
      expect(tenders.length).toBeGreaterThan(0);
      expect(new Set(tenders.map((t) => t.buyer.country))).toEqual(new Set(['FRA']));
      const orgs = (await walk([replica.url], '/api/v1/organisations/search', { limit: 100 }, 'organisations')) as { country: string; tenderCount: number }[];
      expect(new Set(orgs.map((o) => o.country))).toEqual(new Set(['FRA']));
      expect(orgs.reduce((n, o) => n + o.tenderCount, 0)).toBe(tenders.length);
      const changes = (await walk([replica.url], CHANGES, { limit: 100 }, 'changes')) as Change[];
      expect(changes.map((c) => JSON.stringify(c)).sort()).toEqual((await cliChanges(db, ['fra'])).sort());
      const german = (await runCli(['search', '--local', '--db', db, '--sync', 'deu', '-n', '1', '-f', 'ndjson'], undefined)).stdout;
      expect((await fetch(`${replica.url}/api/v1/tenders/${encodeURIComponent((JSON.parse(german) as { id: string }).id)}`)).status).toBe(404);
      // The page too: France's tenders counted, no other sync offered, the German tender its 404.
      const page = await (await fetch(`${replica.url}/`)).text();
      expect(page).toContain(`<strong>${tenders.length.toLocaleString('en-US')} tenders</strong> match`);
      expect(page).not.toContain('<option>deu</option>');
      expect((await fetch(`${replica.url}/tenders/${encodeURIComponent((JSON.parse(german) as { id: string }).id)}`)).status).toBe(404);
      expect(await (await fetch(`${replica.url}/readyz`)).json()).toMatchObject({ syncs: [{ name: 'fra' }] });
    });
    const unknown = await runCli(['serve', '--db', db, '--listen', '127.0.0.1:0', '--sync', 'ita'], undefined);
    expect([unknown.code, unknown.stderr]).toEqual([2, "tenders: --sync: the copy has no sync named 'ita' (there are: deu, fra)\n"]);
  });
});

describe('cursors, CORS and the JSON log', () => {
  it("cursors outlive a restart (the copy's secret); --secret-file signs with its own; a copy without a secret says so", async () => {
    const db = join(testDir(), 'copy.db');
    expect((await runCli(['sync', 'deu', '-c', 'DEU', '--db', db], sb.url)).code).toBe(0);
    let cursor = '';
    await withReplica(['--db', db, '-q'], async (replica) => {
      cursor = (parseJson((await post(replica.url, TENDERS, { limit: 3 })).text) as Page).page.nextCursor!;
    });
    await withReplica(['--db', db, '-q'], async (replica) => {
      expect((await post(replica.url, TENDERS, { limit: 3, cursor })).status).toBe(200);
    });
    const secretFile = join(testDir(), 'secret');
    writeFileSync(secretFile, 'a team secret\n');
    await withReplica(['--db', db, '-q', '--secret-file', secretFile], async (replica) => {
      const r = await post(replica.url, TENDERS, { limit: 3, cursor });
      expect([r.status, r.text]).toEqual([400, '{"message":"invalid cursor"}']);
    });
    const empty = join(testDir(), 'empty');
    writeFileSync(empty, '\nsecond line\n');
    const refused = await runCli(['serve', '--db', db, '--listen', '127.0.0.1:0', '--secret-file', empty], undefined);
    expect([refused.code, refused.stderr]).toEqual([2, `tenders: --secret-file: ${empty} holds no secret on its first line\n`]);
    const raw = new Database(db);
    raw.exec('DELETE FROM serve_secret');
    raw.close();
    const stderr = await withReplica(['--db', db, '-q'], async (replica) => {
      expect((await post(replica.url, TENDERS, { limit: 3, cursor })).status).toBe(400);
    });
    expect(stderr).toBe('tenders: serve: the copy keeps no cursor secret yet: cursors will not survive a restart until the next tenders sync\n');
  });

  it('--cors answers a preflight for its origin; --log-format json writes one object per request', async () => {
    const db = join(testDir(), 'copy.db');
    expect((await runCli(['sync', 'deu', '-c', 'DEU', '--db', db], sb.url)).code).toBe(0);
    const stderr = await withReplica(['--db', db, '--cors', 'https://dash.example', '--log-format', 'json'], async (replica) => {
      const pre = await fetch(replica.url + CHANGES, { method: 'OPTIONS', headers: { origin: 'https://dash.example', 'access-control-request-method': 'POST' } });
      expect([pre.status, pre.headers.get('access-control-allow-origin'), pre.headers.get('access-control-allow-headers')]).toEqual([
        204,
        'https://dash.example',
        'authorization, content-type',
      ]);
      const r = await post(replica.url, TENDERS, { limit: 1 }, { origin: 'https://dash.example' });
      expect(r.headers.get('access-control-allow-origin')).toBe('https://dash.example');
    });
    const lines = stderr.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((l) => [l.method, l.path, l.status])).toEqual([
      ['OPTIONS', CHANGES, 204],
      ['POST', TENDERS, 200],
    ]);
    expect(Object.keys(lines[1]!)).toEqual(['time', 'method', 'path', 'status', 'bytes', 'ms']);
  });
});

describe.skipIf(POSTGRES_MISSING)('two servers over one PostgreSQL copy', () => {
  it("agree on cursors with no configuration: a walk alternating between them is the one server's walk; another secret's cursor is 400", async () => {
    const url = await (await postgres()).createDatabase('serveapi');
    await copyWithHistory(url);
    const one = await spawnServe(['--db', url, '--listen', '127.0.0.1:0', '-q']);
    const two = await spawnServe(['--db', url, '--listen', '127.0.0.1:0', '-q']);
    try {
      for (const body of [{ limit: 9 }, { limit: 9, sortBy: 'deadline' }]) {
        const alone = await walk([one.url], TENDERS, body, 'tenders');
        expect(alone.length).toBeGreaterThan(50);
        expect(await walk([one.url, two.url], TENDERS, body, 'tenders')).toEqual(alone);
      }
      const changesAlone = await walk([one.url], CHANGES, { limit: 5 }, 'changes');
      expect(changesAlone.length).toBeGreaterThan(5);
      expect(await walk([two.url, one.url], CHANGES, { limit: 5 }, 'changes')).toEqual(changesAlone);
      const cursor = (parseJson((await post(one.url, TENDERS, { limit: 3 })).text) as Page).page.nextCursor!;
      const secretFile = join(testDir(), 'secret');
      writeFileSync(secretFile, 'another secret\n');
      const other = await spawnServe(['--db', url, '--listen', '127.0.0.1:0', '-q', '--secret-file', secretFile]);
      try {
        const r = await post(other.url, TENDERS, { limit: 3, cursor });
        expect([r.status, r.text]).toEqual([400, '{"message":"invalid cursor"}']);
      } finally {
        expect(await other.stop()).toBe(0);
      }
      // The secret is the copy's one row, as the schema's page says.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        expect((await client.query('SELECT count(*)::int AS n FROM serve_secret')).rows).toEqual([{ n: 1 }]);
      } finally {
        await client.end();
      }
    } finally {
      expect(await one.stop()).toBe(0);
      expect(await two.stop()).toBe(0);
    }
  });
});
