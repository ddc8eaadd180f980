import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { subscriptionKey } from '../../src/serve/subscription-keys.js';
import { runCli } from '../support/cli.js';
import { postgres, POSTGRES_MISSING } from '../support/postgres.js';
import { readAtomWithPython, readIcsWithPython } from '../support/readers.js';
import { useSandbox } from '../support/sandbox.js';
import { spawnServe, withReplica } from '../support/serve.js';
import { testDir } from '../support/test-context.js';

/**
 * A sync's files as `tenders serve` serves them under /syncs/{name}/: synced
 * from the sandbox, served, downloaded over real HTTP, and compared with what
 * `tenders export --local` and `tenders changes` write for the same sync and
 * selection; revalidated across syncs that change nothing and something.
 */
const sb = useSandbox({ size: 1200, seed: 29 });
let seed = 100;

async function sync(db: string): Promise<void> {
  const r = await runCli(['sync', 'deu', '-c', 'DEU', '--db', db], sb.url);
  expect(r.code, r.stderr).toBe(0);
}


/** What `export --local` writes into a file (bytes: parquet is binary). */
async function exported(db: string, args: string[], file: string): Promise<Buffer> {
  const out = join(testDir(), file);
  const r = await runCli(['export', '--local', '--db', db, '--sync', 'deu', ...args, '-o', out], undefined);
  expect(r.code, r.stderr).toBe(0);
  return readFileSync(out);
}

async function download(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const r = await fetch(url, { headers });
  return { status: r.status, headers: r.headers, bytes: Buffer.from(await r.arrayBuffer()) };
}

/** The moment a file was made, where a format writes it (a calendar's DTSTAMP, an OCDS package's uri and publishedDate), made equal. */
const madeAt = (text: string) =>
  text
    .replace(/DTSTAMP:\d{8}T\d{6}Z/g, 'DTSTAMP:X')
    .replace(/^\{"uri":"[^"]+","publishedDate":"[^"]+"/, '{"uri":"X","publishedDate":"X"');

const SELECTION = { query: 'statuses=open&sortBy=deadline&minValueEur=10000', flags: ['-s', 'open', '--sort', 'deadline', '--min-value', '10000'] };
const FILES = [
  ['tenders.csv', 'csv'],
  ['tenders.tsv', 'tsv'],
  ['tenders.ndjson', 'ndjson'],
  ['tenders.json', 'json'],
  ['tenders.parquet', 'parquet'],
  ['tenders.ocds.json', 'ocds'],
] as const;

async function equalsExports(db: string): Promise<void> {
  await sync(db);
  await withReplica(['--db', db, '-q'], async (replica) => {
    for (const [file, format] of FILES) {
      const served = await download(`${replica.url}/syncs/deu/${file}?${SELECTION.query}`);
      expect(served.status, file).toBe(200);
      expect(served.headers.get('content-disposition')).toBe(`attachment; filename="deu-${file}"`);
      const local = await exported(db, [...SELECTION.flags, '-f', format], `local-${file}`);
      expect(local.length, file).toBeGreaterThan(500);
      if (format === 'parquet') expect(served.bytes, file).toEqual(local);
      else expect(madeAt(served.bytes.toString('utf8')), file).toBe(madeAt(local.toString('utf8')));
    }
    // The calendar with its reminders (?remind= as --remind), read by Python's icalendar.
    const ics = await download(`${replica.url}/syncs/deu/deadlines.ics?${SELECTION.query}&remind=2d,3h`);
    expect([ics.status, ics.headers.get('content-type'), ics.headers.get('content-disposition')]).toEqual([200, 'text/calendar; charset=utf-8', 'inline; filename="deu-deadlines.ics"']);
    const localIcs = await exported(db, [...SELECTION.flags, '-f', 'ics', '--remind', '2d,3h'], 'local.ics');
    expect(madeAt(ics.bytes.toString('utf8'))).toBe(madeAt(localIcs.toString('utf8')));
    const { events } = readIcsWithPython(ics.bytes.toString('utf8'));
    expect(events.length).toBeGreaterThan(5);
    expect(events[0]!.ALARMS).toEqual(['-P2D', '-PT3H']);
    // The changes as a feed: an entry per tender and run that changed it, read by feedparser, the history of `tenders changes deu`.
    sb.mutate({ insert: 40, update: 150, close: 20, remove: 20, seed: ++seed });
    await sync(db);
    const feed = await download(`${replica.url}/syncs/deu/changes.atom`);
    expect([feed.status, feed.headers.get('content-type')]).toEqual([200, 'application/atom+xml; charset=utf-8']);
    const history = await runCli(['changes', 'deu', '--db', db, '-f', 'ndjson'], undefined);
    expect(history.code, history.stderr).toBe(0);
    const ids = history.stdout.trim().split('\n').map((line) => {
      const change = JSON.parse(line) as { at: string; kind: string; id: string };
      return `urn:tenders:sync:deu:${change.at}:${change.kind}:${encodeURIComponent(change.id)}`;
    });
    const parsed = readAtomWithPython(feed.bytes.toString('utf8'));
    expect(parsed.bozo, parsed.bozoMessage).toBe(false);
    expect(parsed.feed.title).toBe('Changes of deu');
    expect(parsed.entries.map((e) => e.id)).toEqual(ids.filter((id, i) => id !== ids[i - 1]));
    const kinds = new Set(parsed.entries.map((e) => e.title.split(/[ :(]/)[0]));
    expect([...kinds].filter((kind) => !['New', 'Changed', 'Gone'].includes(kind!))).toEqual([]);
    expect(kinds.has('Changed') && kinds.has('New')).toBe(true);
  });
}

describe('a sync\'s files served by tenders serve, over a SQLite copy', () => {
  it('each download equals export --local of the same sync and selection (parquet byte for byte), the calendar parses, the feed is the sync\'s changes', async () => {
    await equalsExports(join(testDir(), 'copy.db'));
  });

  it('revalidates: 304 while the copy is unchanged, the same ETag after a sync that changed nothing, a new one after a sync that changed something', async () => {
    const db = join(testDir(), 'copy.db');
    await sync(db);
    await withReplica(['--db', db, '-q'], async (replica) => {
      const url = `${replica.url}/syncs/deu/deadlines.ics?deadlineFrom=2024-01-01`;
      const first = await download(url);
      const etag = first.headers.get('etag')!;
      const modified = first.headers.get('last-modified')!;
      expect(etag).toMatch(/^W\/"/);
      expect(first.headers.get('cache-control')).toBe('no-cache');
      expect((await download(url, { 'if-none-match': etag })).status).toBe(304);
      expect((await download(url, { 'if-modified-since': modified })).status).toBe(304);
      // Another selection of the same sync is another file.
      expect((await download(`${url}&q=bau*`, { 'if-none-match': etag })).status).toBe(200);

      await sync(db);
      const unchanged = await download(url, { 'if-none-match': etag });
      expect([unchanged.status, unchanged.headers.get('etag'), unchanged.headers.get('last-modified')]).toEqual([304, etag, modified]);

      const before = new Date().toISOString();
      sb.mutate({ insert: 40, update: 150, seed: ++seed });
      await sync(db);
      // The sync did change the sync's tenders (else this test would prove nothing).
      const changes = await runCli(['changes', 'deu', '--db', db, '--since', before, '-f', 'ndjson'], undefined);
      expect(changes.stdout.trim()).not.toBe('');
      const changed = await download(url, { 'if-none-match': etag });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
      expect(Date.parse(changed.headers.get('last-modified')!)).toBeGreaterThanOrEqual(Date.parse(modified));
      expect((await download(url, { 'if-none-match': changed.headers.get('etag')! })).status).toBe(304);
    });
  });

  it('with a token: ?key= of the path admits GET of that path alone, a wrong key is 401; GET /api/v1/syncs lists the keyed URLs; keys never reach the access log', async () => {
    const db = join(testDir(), 'copy.db');
    await sync(db);
    const tokenFile = join(testDir(), 'token');
    writeFileSync(tokenFile, 'team-token\n');
    const replica = await spawnServe(['--db', db, '--listen', '127.0.0.1:0', '--token-file', tokenFile]);
    try {
      const path = '/syncs/deu/deadlines.ics';
      const key = subscriptionKey('team-token', path);
      expect((await download(`${replica.url}${path}`)).status).toBe(401);
      const keyed = await download(`${replica.url}${path}?key=${key}&remind=1d`);
      expect(keyed.status).toBe(200);
      expect(keyed.bytes.toString('utf8')).toMatch(/^BEGIN:VCALENDAR\r\n/);
      const wrong = await download(`${replica.url}${path}?key=${subscriptionKey('old-token', path)}`);
      expect([wrong.status, wrong.bytes.toString('utf8')]).toEqual([401, '{"message":"a bearer token is required"}']);
      expect((await download(`${replica.url}/syncs/deu/tenders.csv?key=${key}`)).status).toBe(401);
      expect((await download(`${replica.url}/api/v1/syncs?key=${key}`)).status).toBe(401);
      const listed = await fetch(`${replica.url}/api/v1/syncs`, { headers: { authorization: 'Bearer team-token' } });
      const { syncs } = (await listed.json()) as { syncs: Record<string, unknown>[] };
      expect(syncs).toEqual([
        expect.objectContaining({
          name: 'deu',
          query: expect.objectContaining({ body: { buyerCountries: ['DEU'] } }),
          service: sb.url,
          complete: true,
          tenders: expect.any(Number),
          subscriptions: {
            calendar: `${replica.url}${path}?key=${key}`,
            webcal: `${replica.url.replace('http:', 'webcal:')}${path}?key=${key}`,
            feed: `${replica.url}/syncs/deu/changes.atom?key=${subscriptionKey('team-token', '/syncs/deu/changes.atom')}`,
          },
        }),
      ]);
      const csvUrl = (syncs[0]!.files as Record<string, string>)['tenders.csv']!;
      expect((await download(csvUrl)).status).toBe(200);
      expect(replica.stderr()).toContain(`GET ${path} 200 `);
      expect(replica.stderr()).not.toContain(key);
      expect(replica.stderr()).not.toContain('key=');
    } finally {
      expect(await replica.stop()).toBe(0);
    }
  });
});

describe.skipIf(POSTGRES_MISSING)('a sync\'s files served by tenders serve, over a PostgreSQL copy', () => {
  it('each download equals export --local of the same sync and selection, the calendar parses, the feed is the sync\'s changes', async () => {
    await equalsExports(await (await postgres()).createDatabase('downloads'));
  });
});
