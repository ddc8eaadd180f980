import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { mutate } from '../../src/sandbox/mutate.js';
import { Routes } from '../../src/sandbox/routes.js';
import { Store } from '../../src/sandbox/store.js';
import type { Responder } from '../support/fake-client.js';
import { runInProcess } from '../support/run.js';
import { testDir } from '../support/test-context.js';

/** The sandbox's service in-process, over data a test changes between runs. */
function service(size: number, seed: number) {
  const store = new Store(size, seed);
  const routes = new Routes(store, 'in-process');
  const respond: Responder = ({ path, body }) => {
    const answer = routes.handle(path, body);
    return { status: answer.status, json: JSON.parse(answer.body) as unknown };
  };
  return { store, respond };
}

const sync = (args: string[], respond: Responder, env: Record<string, string> = {}) =>
  runInProcess(['sync', ...args], respond, { env: { TENDERS_DB: join(testDir(), 'tenders.db'), ...env } });

/** Rows of the copy, read with the engine itself (not through tenders). */
function rows(query: string): Record<string, unknown>[] {
  const db = new Database(join(testDir(), 'tenders.db'), { readonly: true });
  try {
    return db.prepare(query).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

describe('sync in-process', () => {
  it('a first run stores the query silently; a later one records the changes and says so with --verbose', async () => {
    const { store, respond } = service(600, 3);
    const first = await sync(['w', '-c', 'DEU,FRA', '-s', 'open'], respond);
    expect(first).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(rows('SELECT name, query FROM syncs')).toEqual([
      { name: 'w', query: '{"org":null,"body":{"buyerCountries":["DEU","FRA"],"statuses":["open"]}}' },
    ]);
    const held = rows('SELECT count(*) AS n FROM sync_tenders')[0]!.n as number;
    expect(first.client.requests.map((r) => r.body.limit)).toEqual(first.client.requests.map(() => 100));
    mutate(store, { update: 40, remove: 30, seed: 5 });
    const second = await sync(['w', '--verbose'], respond);
    expect(second.code).toBe(0);
    const counts = rows("SELECT kind, count(DISTINCT id) AS n FROM changes GROUP BY kind ORDER BY kind");
    const n = (kind: string) => (counts.find((c) => c.kind === kind)?.n as number | undefined) ?? 0;
    expect(n('gone')).toBeGreaterThan(0);
    expect(n('changed')).toBeGreaterThan(0);
    const line = `sync w: ${n('new')} new, ${n('changed')} changed, ${n('gone')} gone (${(held - n('gone') + n('new')).toLocaleString('en')} tenders, `;
    expect(second.stderr.split('\n').filter((l) => l.startsWith('sync w:'))).toEqual([expect.stringContaining(line)]);
  });

  it('usage errors before any request: no NAME, output flags, --list with filters, other filters than the saved ones', async () => {
    const { respond } = service(100, 3);
    expect((await sync(['w', '-c', 'DEU'], respond)).code).toBe(0);
    for (const [args, message] of [
      [[], /sync needs a NAME/],
      [['w', '-f', 'csv'], /-f is for --list/],
      [['--list', '-c', 'DEU'], /--list takes no filters/],
      [['--forget'], /--forget needs the NAME/],
      [['w', '-c', 'FRA'], /sync w follows '-c DEU', not '-c FRA'/],
      [['bad/name'], /a sync name is up to 100 letters/],
    ] as const) {
      const r = await sync([...args], respond);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.client.requests).toEqual([]);
    }
  });

  it('--dry-run prints the saved query\'s first request and creates nothing', async () => {
    const { respond } = service(100, 3);
    const r = await runInProcess(['sync', 'w', '-c', 'DEU', '--dry-run'], respond, { env: { TENDERS_DB: join(testDir(), 'none.db') } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"buyerCountries"');
    expect(r.client.requests).toEqual([]);
  });

  it('the store is opened before the walk: an unusable --db is exit 2 with no request', async () => {
    const { respond } = service(100, 3);
    const r = await sync(['w', '--db', testDir()], respond);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tenders: .* is a directory/);
    expect(r.client.requests).toEqual([]);
  });

  it('--list prints a table on a terminal with the columns of a sync', async () => {
    const { respond } = service(100, 3);
    await sync(['w', '-s', 'open'], respond);
    const r = await runInProcess(['sync', '--list'], respond, { env: { TENDERS_DB: join(testDir(), 'tenders.db'), COLUMNS: '200', NO_COLOR: '1' }, stdoutTTY: true });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/name +query +service +lastRun +tenders +complete/);
    expect(r.stdout).toContain('-s open');
  });
});
