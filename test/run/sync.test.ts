import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
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

const sync = (args: string[], respond: Responder, env: Record<string, string> = {}, opts: Parameters<typeof runInProcess>[2] = {}) =>
  runInProcess(['sync', ...args], respond, { ...opts, env: { TENDERS_DB: join(testDir(), 'tenders.db'), ...env } });

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

  it('at a terminal a run ends with one line: what changed, the tenders held, how long, where the copy is; --forget says what it removed', async () => {
    const { store, respond } = service(300, 3);
    const db = join(testDir(), 'tenders.db');
    const first = await sync(['w', '-c', 'DEU'], respond, {}, { stderrTTY: true });
    const held = rows('SELECT count(*) AS n FROM sync_tenders')[0]!.n as number;
    expect(first).toMatchObject({ code: 0, stdout: '' });
    expect(first.stderr).toMatch(new RegExp(`^sync w: baseline recorded \\(${held} tenders, 1 page in \\d+\\.\\d s\\) in ${db}\n$`));
    mutate(store, { update: 40, remove: 30, seed: 5 });
    const again = await sync(['w'], respond, {}, { stderrTTY: true });
    expect(again.stderr).toMatch(new RegExp(`^sync w: \\d+ new, \\d+ changed, \\d+ gone \\(\\d+ tenders, 1 page in \\d+\\.\\d s\\) in ${db}\n$`));
    // Into cron: nothing.
    expect(await sync(['w'], respond)).toMatchObject({ code: 0, stderr: '' });
    const forgot = await sync(['w', '--forget'], respond, {}, { stderrTTY: true });
    expect(forgot.stderr).toMatch(/^sync w forgotten \(\d+ tenders only it held removed\)\n$/);
  });

  it('Ctrl-C says that the copy is as it was before the run (exit 130)', async () => {
    const { store, respond } = service(600, 3);
    await sync(['w', '-n', '50'], respond);
    mutate(store, { update: 40, remove: 30, seed: 5 });
    const controller = new AbortController();
    const stopping: Responder = (request, n) => {
      if (n === 2) controller.abort(new InterruptedError('SIGINT'));
      return respond(request, n);
    };
    const r = await sync(['w', '-n', '50'], stopping, {}, { signal: controller.signal });
    expect(r).toMatchObject({ code: 130, stdout: '' });
    expect(r.stderr).toBe(`tenders: interrupted by SIGINT: the copy at ${join(testDir(), 'tenders.db')} is as it was before this run\n`);
    expect(rows('SELECT count(*) AS n FROM changes')).toEqual([{ n: 0 }]);
  });

  it('takes the saved query in another spelling: a filter\'s values in another order, the default order said', async () => {
    const { respond } = service(100, 3);
    expect((await sync(['w', '-c', 'DEU,FRA', '--sort', 'deadline'], respond)).code).toBe(0);
    expect(await sync(['w', '-c', 'FRA,DEU', '--sort', 'deadline', '--order', 'asc'], respond)).toMatchObject({ code: 0, stderr: '' });
    const other = await sync(['w', '-c', 'FRA,DEU', '--sort', 'deadline', '--order', 'desc'], respond);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/sync w follows '.*', not '.*--order desc.*'/);
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

  it('--dry-run of a saved sync whose copy cannot be read says why (exit 1), not the request of a first run', async () => {
    const { respond } = service(100, 3);
    // Nothing listens on port 1: the copy is there for all the dry run knows.
    const r = await runInProcess(['sync', 'w', '--dry-run', '--db', 'postgres://u:pw@127.0.0.1:1/db'], respond);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^tenders: postgres:\/\/u@127\.0\.0\.1:1\/db: cannot reach the PostgreSQL server/);
    expect(r.client.requests).toEqual([]);
  });

  it('the store is opened before the walk: an unusable --db is exit 2 with no request', async () => {
    const { respond } = service(100, 3);
    const r = await sync(['w', '--db', testDir()], respond);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tenders: .* is a directory/);
    expect(r.client.requests).toEqual([]);
  });

  it('--list on a narrow terminal says which columns it hid, as every table does', async () => {
    const { respond } = service(100, 3);
    await sync(['w', '-s', 'open'], respond);
    const r = await runInProcess(['sync', '--list'], respond, {
      env: { TENDERS_DB: join(testDir(), 'tenders.db'), NO_COLOR: '1' },
      stdoutTTY: true,
      stderrTTY: true,
      columns: 50,
    });
    expect(r.code).toBe(0);
    expect(r.stderr.replace(/\n/g, ' ')).toMatch(/columns? hidden at 50 columns: .*complete/);
  });

  it('--list prints a table on a terminal with the columns of a sync', async () => {
    const { respond } = service(100, 3);
    await sync(['w', '-s', 'open'], respond);
    const r = await runInProcess(['sync', '--list'], respond, { env: { TENDERS_DB: join(testDir(), 'tenders.db'), COLUMNS: '200', NO_COLOR: '1' }, stdoutTTY: true });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/name +query +service +lastRun \(UTC\) +tenders +complete/);
    expect(r.stdout).toContain('-s open');
  });
});

describe('sync --list and --forget in-process', () => {
  it('--list of a copy without syncs prints nothing and says so with --verbose', async () => {
    const { respond } = service(100, 3);
    await sync(['w', '-c', 'DEU'], respond);
    await sync(['w', '--forget'], respond);
    const r = await sync(['--list', '--verbose'], respond);
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr).toBe(`No syncs in ${join(testDir(), 'tenders.db')}.\n`);
  });

  it('--forget removes the sync and the tenders only it held, saying how many; a copy that is not there is exit 1, created by nothing', async () => {
    const { store, respond } = service(300, 3);
    const missing = await sync(['w', '--forget'], respond);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toBe(`tenders: no local copy at ${join(testDir(), 'tenders.db')}: there is no sync named w to forget\n`);
    expect(existsSync(join(testDir(), 'tenders.db'))).toBe(false);

    await sync(['w', '-c', 'DEU'], respond);
    await sync(['all'], respond);
    const deu = rows("SELECT count(*) AS n FROM sync_tenders WHERE sync = 'w'")[0]!.n as number;
    const r = await sync(['all', '--forget', '--verbose'], respond);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`sync all forgotten (${(store.size - deu).toLocaleString('en')} tenders only it held removed)\n`);
    expect(rows('SELECT name FROM syncs')).toEqual([{ name: 'w' }]);
    expect(rows('SELECT count(*) AS n FROM tenders')).toEqual([{ n: deu }]);
    expect(r.client.requests).toEqual([]);
  });

  it('--list in ndjson: one object per sync, by name, with its query, service and last run', async () => {
    const { respond } = service(100, 3);
    await sync(['b', '-s', 'open'], respond);
    await sync(['a', '-c', 'FRA'], respond);
    const r = await sync(['--list', '-f', 'ndjson'], respond);
    expect(r.code).toBe(0);
    const list = r.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(list.map((s) => [s.name, s.query, s.service, s.complete])).toEqual([
      ['a', '-c FRA', 'http://service.test', true],
      ['b', '-s open', 'http://service.test', true],
    ]);
    expect(list.every((s) => typeof s.lastRun === 'string' && typeof s.tenders === 'number')).toBe(true);
  });
});

describe('sync runs in-process', () => {
  it('a run that fails records its receipt row (complete = 0, the error) and leaves the tenders as they were', async () => {
    const { respond } = service(600, 3);
    await sync(['w'], respond);
    const before = rows('SELECT id, doc FROM tenders ORDER BY id');
    const failing: Responder = (request, n) => (n >= 3 ? { status: 503, json: { error: { message: 'down for maintenance' } } } : respond(request, n));
    const r = await sync(['w', '--retries', '0'], failing);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: .*503/);
    expect(rows('SELECT id, doc FROM tenders ORDER BY id')).toEqual(before);
    expect(rows('SELECT run, complete, error IS NOT NULL AS failed, pages FROM runs ORDER BY run')).toEqual([
      { run: 1, complete: 1, failed: 0, pages: expect.any(Number) },
      { run: 2, complete: 0, failed: 1, pages: 2 },
    ]);
    expect(rows('SELECT count(*) AS n FROM changes')).toEqual([{ n: 0 }]);
  });

  it('--new-only in the default order stops at the first page without news, records only the new tenders, and says so', async () => {
    const { store, respond } = service(600, 3);
    await sync(['w'], respond);
    mutate(store, { insert: 7, update: 30, seed: 9 });
    const r = await sync(['w', '--new-only', '--verbose'], respond);
    expect(r.code).toBe(0);
    // The first page holds the 7 new tenders (newest first), the second none: the walk stops there.
    expect(r.client.requests).toHaveLength(2);
    expect(rows("SELECT kind, count(*) AS n FROM changes GROUP BY kind")).toEqual([{ kind: 'new', n: 7 }]);
    expect(rows('SELECT mode, complete FROM runs ORDER BY run DESC LIMIT 1')).toEqual([{ mode: 'new-only', complete: 1 }]);
    expect(r.stderr).toContain('sync w: 7 new (changed and gone tenders are looked for without --new-only)');
    expect(r.stderr).toMatch(/in 2 pages \(stopped early\)/);
  });

  it('--new-only in another order walks every page, and says why with --verbose; on a first run it records a baseline', async () => {
    const { respond } = service(300, 3);
    const first = await sync(['w', '--new-only', '--sort', 'deadline', '--verbose'], respond);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('* --new-only: this is the first run of the sync, so it stores every tender (the baseline)');
    expect(first.stderr).toContain('sync w: baseline recorded');
    const pages = first.client.requests.length;
    const again = await sync(['w', '--new-only', '--verbose'], respond);
    expect(again.stderr).toContain('* --new-only walks every page here');
    expect(again.client.requests).toHaveLength(pages);
  });

  it('bound to its service: another base URL is exit 2 naming both, before any request; --reset follows the new one', async () => {
    const { respond } = service(100, 3);
    await sync(['w', '-c', 'DEU'], respond);
    const elsewhere = { TENDERS_BASE_URL: 'https://user:secret@other.test/' };
    const r = await sync(['w'], respond, elsewhere);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'tenders: sync w copies http://service.test, not https://other.test: leave --base-url and TENDERS_BASE_URL out to reach the saved service, or add --reset to copy the new one\n',
    );
    expect(r.client.requests).toEqual([]);
    expect((await sync(['w', '--reset'], respond, elsewhere)).code).toBe(0);
    expect(rows('SELECT service FROM syncs')).toEqual([{ service: 'https://other.test' }]);
  });

  it('--receipt records the sync: its copy, run, mode, and the counts of the store', async () => {
    const { store, respond } = service(300, 3);
    await sync(['w'], respond);
    mutate(store, { insert: 5, seed: 2 });
    const receipt = join(testDir(), 'receipt.json');
    const r = await sync(['w', '--receipt', receipt], respond, { TENDERS_DB: `${join(testDir(), 'tenders.db')}` });
    expect(r.code).toBe(0);
    const json = JSON.parse(readFileSync(receipt, 'utf8')) as { command: string; complete: boolean; sync: Record<string, unknown> };
    expect(json).toMatchObject({ command: 'sync', complete: true });
    expect(json.sync).toMatchObject({ name: 'w', db: join(testDir(), 'tenders.db'), run: 2, mode: 'full', baseline: false, committed: true });
    expect(json.sync.counts).toMatchObject({ new: 5, changed: 0, gone: 0 });
  });
});
