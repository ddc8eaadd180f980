import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgres, POSTGRES_MISSING } from '../support/postgres.js';
import { runInProcess } from '../support/run.js';
import { TenderSet } from '../support/tender-set.js';
import { testDir, testEnv } from '../support/test-context.js';

/**
 * A watch whose state a PostgreSQL copy keeps, run in-process (test/e2e/watch.test.ts
 * runs the binary: kills, lost connections, roles): the same changes as a file-kept
 * watch, the state in the copy's rows, --list and --forget there, a file moved in.
 */
describe.skipIf(POSTGRES_MISSING)('watch with its state in PostgreSQL, in-process', () => {
  async function place() {
    const url = await (await postgres()).createDatabase('watchin');
    const db = `${url}?schema=w`;
    const shown = `${url.replace(/:[^:@/]+@/, '@')}?schema=w`;
    const tmp = join(testDir(), 'tmp');
    await mkdir(tmp, { recursive: true });
    const base = testEnv();
    const env = { ...base, TMPDIR: tmp };
    const query = async (sql: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql)).rows as Record<string, unknown>[];
      } finally {
        await client.end();
      }
    };
    return { db, shown, env, tmp, stateDir: base.TENDERS_STATE_DIR!, query };
  }
  const summaries = (text: string) =>
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { change: string; tender: { id: string } })
      .map((row) => `${row.change} ${row.tender.id}`);

  it('a baseline in the rows, each change once, --list and --forget in the copy, no file and no work directory left', async () => {
    const { db, shown, env, tmp, stateDir, query } = await place();
    const set = new TenderSet(120);
    const watch = (args: string[]) => runInProcess(['watch', ...args], set.respond, { env });
    expect(await watch(['w', '-s', 'open', '--db', db])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(await query("SELECT name, tenders FROM w.watches")).toEqual([{ name: 'w', tenders: 120 }]);
    expect(await query('SELECT count(*)::int AS n FROM w.watch_tenders')).toEqual([{ n: 120 }]);

    set.insert(2);
    set.update('T-7', (t) => (t.title = 'renamed'));
    set.remove('T-9');
    const changed = await watch(['w', '--db', db, '-f', 'ndjson', '-v']);
    expect(changed.code).toBe(0);
    expect(summaries(changed.stdout)).toEqual(['new T-122', 'new T-121', 'changed T-7', 'gone T-9']);
    expect(changed.stderr).toMatch(/watch w: state of 120 tenders read from the copy in [\d.]+ s\n/);
    expect(changed.stderr).toMatch(/watch w: state of 121 tenders saved into the copy in [\d.]+ s\n/);
    expect((await watch(['w', '--db', db])).stdout).toBe('');

    const list = await watch(['--list', '--db', db, '-f', 'ndjson', '-v']);
    expect(list.stdout.trim().split('\n').map((line) => JSON.parse(line) as unknown)).toEqual([
      { name: 'w', query: '-s open', lastRun: expect.any(String), tenders: 121, db: shown },
    ]);
    expect(list.stderr).toBe(`1 watch in ${shown}.\n`);
    expect(await watch(['w', '--forget', '--db', db, '-v'])).toMatchObject({ code: 0, stderr: `watch w forgotten (deleted from ${shown})\n` });
    expect(await query('SELECT (SELECT count(*) FROM w.watches)::int + (SELECT count(*) FROM w.watch_tenders)::int AS n')).toEqual([{ n: 0 }]);
    expect(await watch(['w', '--forget', '--db', db])).toMatchObject({ code: 1, stderr: `tenders: there is no watch named w in ${shown} (see tenders watch --list)\n` });
    expect(await watch(['--list', '--db', db, '-v'])).toMatchObject({ code: 0, stdout: '', stderr: `No saved watches in ${shown}.\n` });
    expect(await readdir(tmp)).toEqual([]);
    expect(await readdir(stateDir).catch(() => [])).toEqual([]);
  });

  it('a state file of the state directory moves in with its next run, its changes reported from it', async () => {
    const { db, shown, env, stateDir, query } = await place();
    const set = new TenderSet(30);
    const watch = (args: string[]) => runInProcess(['watch', ...args], set.respond, { env });
    expect((await watch(['w', '-s', 'open'])).code).toBe(0);
    const file = join(stateDir, 'w.watch');
    expect((await readFile(file, 'utf8')).split('\n')[0]).toContain('"name":"w"');

    const listed = await watch(['--list', '--db', db, '-v']);
    expect(listed.stderr).toBe(`1 watch in ${stateDir} (w) moves into ${shown} when it runs next\nNo saved watches in ${shown}.\n`);
    set.remove('T-3');
    const moved = await watch(['w', '--db', db, '-f', 'ndjson']);
    expect(moved).toMatchObject({ code: 0, stderr: `tenders: warning: watch w: its state moved from ${file} into ${shown}\n` });
    expect(summaries(moved.stdout)).toEqual(['gone T-3']);
    expect(await readdir(stateDir)).toEqual([]);
    expect(await query('SELECT tenders FROM w.watches')).toEqual([{ tenders: 29 }]);
    // A dry run reads the saved query from the copy.
    const dry = await watch(['w', '--db', db, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout.slice(dry.stdout.indexOf('\n') + 1))).toEqual({ statuses: ['open'], limit: 100 });
  });

  it('a file of a watch the copy keeps too is refused, until the file goes; a file-only watch is forgotten in its directory', async () => {
    const { db, shown, env, stateDir } = await place();
    const set = new TenderSet(10);
    const watch = (args: string[]) => runInProcess(['watch', ...args], set.respond, { env });
    expect((await watch(['w', '--db', db])).code).toBe(0);
    expect((await watch(['w'])).code).toBe(0); // the same name, kept as a file
    const file = join(stateDir, 'w.watch');
    const refused = await watch(['w', '--db', db]);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toBe(
      `tenders: watch w is kept both in ${shown} and in ${file}: delete the file to go on with the copy's, or forget the copy's (tenders watch w --forget --db ${shown}) to move the file in with the next run\n`,
    );
    expect((await watch(['--list', '--db', db, '-f', 'ndjson'])).stderr).toBe(`tenders: warning: w: kept both in ${stateDir} and in ${shown}; its runs are refused until one is deleted\n`);
    expect((await watch(['v'])).code).toBe(0);
    expect(await watch(['v', '--forget', '--db', db])).toMatchObject({ code: 0, stdout: '' });
    expect(await readdir(stateDir)).toEqual(['w.watch']);
  });

  it('a damaged row is exit 1 naming the watch in its copy, and --list leaves it out with a warning', async () => {
    const { db, shown, env, query } = await place();
    const set = new TenderSet(5);
    const watch = (args: string[]) => runInProcess(['watch', ...args], set.respond, { env });
    expect((await watch(['w', '--db', db])).code).toBe(0);
    expect((await watch(['v', '-c', 'FRA', '--db', db])).code).toBe(0);
    await query(`UPDATE w.watches SET query = '{"org":null}' WHERE name = 'w'`);
    const damaged = `the watch state ${shown} (watch w) has a damaged first line: run the same command with --reset to record a new baseline (changes since its last run are then not reported)`;
    expect(await watch(['w', '--db', db])).toMatchObject({ code: 1, stdout: '', stderr: `tenders: ${damaged}\n` });
    const list = await watch(['--list', '--db', db, '-f', 'ndjson']);
    expect(list.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { name: string }).name)).toEqual(['v']);
    expect(list.stderr).toBe(`tenders: warning: ${damaged}\n`);
    expect(await watch(['w', '--db', db, '--reset'])).toMatchObject({ code: 0, stderr: '' });
    expect(await watch(['w', '--db', db])).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });
});
