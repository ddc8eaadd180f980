import { execFile, execFileSync } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli, type CliOptions } from '../support/cli.js';
import { killAfterRequests, onStderr } from '../support/child-stderr.js';
import { useSandbox } from '../support/sandbox.js';
import { testDir } from '../support/test-context.js';
import { requireTool } from '../support/tools.js';
import { endConnectionsAfterRequests, postgres, postgresBin, POSTGRES_MISSING } from '../support/postgres.js';

const PATH = '/api/v1/tenders/search';
const QUERY = ['-c', 'DEU,FRA,ITA,ESP', '-s', 'open'];
const BODY = { buyerCountries: ['DEU', 'FRA', 'ITA', 'ESP'], statuses: ['open'] };

const hasSqlite = requireTool('sqlite3', 'apt-get install sqlite3');
const sb = useSandbox({ size: 3000, seed: 21 });
/** The same data behind another base URL: a sync bound to one service meets another. */
const other = useSandbox({ size: 3000, seed: 21 });
let seed = 0;

/** This test's copy. */
let db: string;
beforeEach(() => {
  db = join(testDir(), 'copy', 'tenders.db');
});

const sync = (args: string[], opts: CliOptions & { url?: string } = {}) =>
  runCli(['sync', ...args], opts.url ?? sb.url, { ...opts, env: { TENDERS_DB: db, ...opts.env } });

/** Rows of a query through the sqlite3 shell, not through tenders. */
function sql<T = Record<string, unknown>>(query: string, file = db): T[] {
  const out = execFileSync('sqlite3', ['-json', file, query], { encoding: 'utf8' });
  return out.trim() === '' ? [] : (JSON.parse(out) as T[]);
}

type Tender = Record<string, unknown> & { id: string };
const truth = () => sb.truth(PATH, BODY) as Tender[];
const mutate = () => sb.mutate({ insert: 30, update: 12, close: 5, remove: 5, seed: ++seed });

/**
 * The rows of `changes` a run must record between two snapshots, written apart
 * from the CLI: objects walked, anything else compared as JSON text.
 */
function expectedChanges(before: Tender[], after: Tender[]): string[] {
  const old = new Map(before.map((t) => [t.id, t]));
  const now = new Set(after.map((t) => t.id));
  const rows: string[] = [];
  const walk = (a: unknown, b: unknown, path: string) => {
    const isObj = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
    if (isObj(a) && isObj(b)) {
      const [x, y] = [a as Record<string, unknown>, b as Record<string, unknown>];
      for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
        if (path === '' && key === 'id') continue;
        walk(Object.hasOwn(x, key) ? x[key] : undefined, Object.hasOwn(y, key) ? y[key] : undefined, path ? `${path}.${key}` : key);
      }
    } else if (JSON.stringify(a) !== JSON.stringify(b)) {
      rows.push(`changed ${path} ${JSON.stringify(a) ?? 'NULL'} ${JSON.stringify(b) ?? 'NULL'}`);
    }
  };
  for (const t of after) {
    const was = old.get(t.id);
    if (!was) rows.push(`new ${t.id}`);
    else {
      const before = rows.length;
      walk(was, t, '');
      for (let i = before; i < rows.length; i++) rows[i] = rows[i]!.replace(/^changed /, `changed ${t.id} `);
    }
  }
  for (const t of before) if (!now.has(t.id)) rows.push(`gone ${t.id}`);
  return rows.sort();
}

/** The `changes` rows of one run, as expectedChanges writes them. */
function recorded(run: number): string[] {
  return sql<{ id: string; kind: string; field: string | null; old: string | null; new: string | null }>(
    `SELECT id, kind, field, old, new FROM changes WHERE run = ${run}`,
  )
    .map((r) => (r.kind === 'changed' ? `changed ${r.id} ${r.field} ${r.old ?? 'NULL'} ${r.new ?? 'NULL'}` : `${r.kind} ${r.id}`))
    .sort();
}

/** Everything a user can read of the copy, to compare before and after a run that must change nothing. */
const dump = () => execFileSync('sqlite3', [db, '.dump'], { encoding: 'utf8' });

/** The ids and documents of the sync's tenders, by id. */
function stored(name = 'open'): Map<string, string> {
  const rows = sql<{ id: string; doc: string }>(
    `SELECT t.id, t.doc FROM tenders t JOIN sync_tenders m ON m.id = t.id WHERE m.sync = '${name}' AND m.gone_at IS NULL`,
  );
  return new Map(rows.map((r) => [r.id, r.doc]));
}

/** `export -f ndjson` of the query: each line by its tender's id. */
async function exported(query = QUERY): Promise<Map<string, string>> {
  const r = await runCli(['export', ...query, '-f', 'ndjson'], sb.url);
  expect(r.code).toBe(0);
  const lines = r.stdout.trim().split('\n');
  return new Map(lines.map((line) => [(JSON.parse(line) as Tender).id, line]));
}

describe.skipIf(!hasSqlite)('sync against the sandbox', () => {
  it('faithful: after a first, silent sync the copy holds exactly what export gives, byte for byte, big numbers included', async () => {
    sb.setFaults({ exoticFields: true });
    const r = await sync(['open', ...QUERY]);
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const expected = await exported();
    expect(expected.size).toBeGreaterThan(100);
    expect(stored()).toEqual(expected);
    expect(sql('SELECT doc FROM tenders').some((row) => String(row.doc).includes('"bigRef":12345678901234567890'))).toBe(true);
    expect(sql('SELECT kind FROM changes')).toEqual([]);
    expect(sql('SELECT sync, mode, baseline, complete FROM runs')).toEqual([{ sync: 'open', mode: 'full', baseline: 1, complete: 1 }]);
  });

  it('records each new, changed (field, old, new) and gone tender exactly once; --verbose says how many', async () => {
    expect((await sync(['open', ...QUERY])).code).toBe(0);
    const before = truth();
    mutate();
    const expected = expectedChanges(before, truth());
    for (const kind of ['new', 'changed', 'gone']) expect(expected.some((row) => row.startsWith(kind))).toBe(true);
    const r = await sync(['open', '--verbose']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const count = (kind: string) => new Set(expected.filter((row) => row.startsWith(kind)).map((row) => row.split(' ')[1])).size;
    expect(r.stderr).toContain(
      `sync open: ${count('new')} new, ${count('changed')} changed, ${count('gone')} gone (${truth().length.toLocaleString('en')} tenders, `,
    );
    expect(recorded(2)).toEqual(expected);
    expect(stored()).toEqual(await exported());
    // Once: a run with nothing changed records nothing, and prints nothing.
    expect(await sync(['open'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(recorded(3)).toEqual([]);
    expect(sql('SELECT count(*) AS n FROM changes')).toEqual([{ n: expected.length }]);
  });

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGKILL'] as const) {
    it(`a run killed by ${signal} mid-walk leaves the copy as it was; the next run records the changes once`, async () => {
      await sync(['open', ...QUERY, '-n', '10']);
      const copy = dump();
      const before = truth();
      mutate();
      const expected = expectedChanges(before, truth());
      sb.setFaults({ latencyMs: 50 });
      const stopped = await sync(['open', '-n', '10', '-v'], { onSpawn: killAfterRequests(4, signal) });
      sb.setFaults({});
      if (signal === 'SIGKILL') expect(stopped.signal).toBe('SIGKILL');
      else expect(stopped.code).toBe(signal === 'SIGINT' ? 130 : 143);
      expect(dump()).toEqual(copy);
      expect(sql('PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      const complete = await sync(['open', '-n', '10']);
      expect(complete.code).toBe(0);
      const run = sql<{ run: number }>('SELECT max(run) AS run FROM runs')[0]!.run;
      expect(recorded(run)).toEqual(expected);
      expect(stored()).toEqual(await exported());
    });
  }

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(`the first sync of a new copy, killed by ${signal} mid-walk, leaves no copy; the next one builds it whole`, async () => {
      const dir = join(testDir(), 'copy');
      sb.setFaults({ latencyMs: 50 });
      // Killed once the run's thread has made the partial copy (on a busy machine it may start after the 4th request).
      const stopped = await sync(['open', ...QUERY, '-n', '10', '-v'], { onSpawn: killAfterRequests(4, signal, join(dir, 'tenders.db.partial')) });
      sb.setFaults({});
      if (signal === 'SIGKILL') expect(stopped.signal).toBe('SIGKILL');
      else expect(stopped.code).toBe(143);
      // A killed run leaves its partial copy (and lock) behind; an interrupted one removes what it built.
      expect((await readdir(dir)).filter((name) => !name.endsWith('.lock'))).toEqual(signal === 'SIGKILL' ? ['tenders.db.partial'] : []);
      const local = await runCli(['search', '--local', '-n', '1'], sb.url, { env: { TENDERS_DB: db } });
      expect(local).toMatchObject({ code: 1, stdout: '' });
      expect(local.stderr).toMatch(/no local copy at .*tenders\.db yet: run tenders sync first/);
      expect(await sync(['open', ...QUERY, '-n', '10'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
      expect(await readdir(dir)).toEqual(['tenders.db']);
      expect(sql('PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      expect(sql('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
      expect(stored()).toEqual(await exported());
    });
  }

  it('a run that fails records its receipt row (complete = 0) and nothing else; the next one does the work', async () => {
    await sync(['open', ...QUERY, '-n', '20']);
    const tenders = sql('SELECT t.id, t.doc, m.last_seen FROM tenders t JOIN sync_tenders m ON m.id = t.id ORDER BY t.id');
    const before = truth();
    mutate();
    sb.setFaults({ failAfter: 3, failStatus: 503 });
    const failed = await sync(['open', '-n', '20', '--retries', '0']);
    sb.setFaults({});
    expect(failed.code).toBe(1);
    expect(sql('SELECT t.id, t.doc, m.last_seen FROM tenders t JOIN sync_tenders m ON m.id = t.id ORDER BY t.id')).toEqual(tenders);
    expect(sql('SELECT complete, error IS NOT NULL AS failed FROM runs ORDER BY run')).toEqual([
      { complete: 1, failed: 0 },
      { complete: 0, failed: 1 },
    ]);
    expect((await sync(['open', '-n', '20'])).code).toBe(0);
    expect(recorded(3)).toEqual(expectedChanges(before, truth()));
  });

  it('readers are not blocked: sqlite3 reads the copy while a sync walks', async () => {
    await sync(['open', ...QUERY, '-n', '10']);
    sb.setFaults({ latencyMs: 30 });
    let read: Promise<string> | undefined;
    const r = await sync(['open', '-n', '10', '-v'], {
      onSpawn: (child) =>
        onStderr(child, /\* POST/, () => {
          read = promisify(execFile)('sqlite3', [db, 'SELECT count(*) FROM tenders WHERE gone_at IS NULL']).then((out) => out.stdout.trim());
        }),
    });
    sb.setFaults({});
    expect(r.code).toBe(0);
    expect(await read).toBe(String(truth().length));
  });

  it('two runs of the same sync: the second exits 1 at once naming the holder; other names both succeed', async () => {
    await sync(['open', ...QUERY, '-n', '10']);
    sb.setFaults({ latencyMs: 50 });
    let second: ReturnType<typeof sync> | undefined;
    let third: ReturnType<typeof sync> | undefined;
    let firstPid = 0;
    const first = sync(['open', '-n', '10', '-v'], {
      onSpawn: (child) => {
        firstPid = child.pid!;
        onStderr(child, /\* POST/, () => {
          second = sync(['open', '-n', '10']);
          third = sync(['deu', '-c', 'DEU', '-n', '50']);
        });
      },
    });
    expect((await first).code).toBe(0);
    const [s, t] = [await second!, await third!];
    sb.setFaults({});
    expect(s.code).toBe(1);
    expect(s.stderr).toMatch(new RegExp(`^tenders: sync 'open' is running already: .*pid ${firstPid}.*\n$`));
    expect(t).toMatchObject({ code: 0, stderr: '' });
    expect(sql('SELECT name FROM syncs ORDER BY name')).toEqual([{ name: 'deu' }, { name: 'open' }]);
    expect(sql('PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
  });

  describe('an unusable --db: one line, exit 2, the file unchanged, no request sent', () => {
    const refused = async (target: string, pattern: RegExp) => {
      sb.clearRequests();
      const r = await sync(['open', ...QUERY, '--db', target]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^tenders: ${pattern.source}[^\n]*\n$`));
      expect(sb.requests).toEqual([]);
    };
    it('a directory, a text file, a read-only copy, a copy of a newer schema', async () => {
      const dir = join(testDir(), 'a-dir');
      await mkdir(dir);
      await refused(dir, /.*is a directory/);
      const text = join(testDir(), 'notes.txt');
      await writeFile(text, 'not a database\n');
      await refused(text, /.*is not a SQLite database/);
      expect(await readFile(text, 'utf8')).toBe('not a database\n');

      expect((await sync(['open', ...QUERY, '-n', '100'])).code).toBe(0);
      execFileSync('sqlite3', [db, 'PRAGMA wal_checkpoint(TRUNCATE)']);
      await chmod(db, 0o444);
      const bytes = await readFile(db);
      await refused(db, /.*is read-only/);
      expect(await readFile(db)).toEqual(bytes);
      await chmod(db, 0o644);
      execFileSync('sqlite3', [db, "UPDATE meta SET value = '99' WHERE key = 'schema_version'; PRAGMA wal_checkpoint(TRUNCATE);"]);
      const newer = await readFile(db);
      await refused(db, /.*newer tenders/);
      expect(await readFile(db)).toEqual(newer);
    });
  });

  it('bound to its service and query: another base URL or other filters are exit 2 naming both, unless --reset', async () => {
    await sync(['open', ...QUERY, '-n', '100']);
    sb.clearRequests();
    const moved = await sync(['open'], { url: other.url });
    expect(moved.code).toBe(2);
    expect(moved.stderr).toContain(`sync open copies ${sb.url}, not ${other.url}`);
    const refiltered = await sync(['open', '-c', 'DEU']);
    expect(refiltered.code).toBe(2);
    expect(refiltered.stderr).toContain("sync open follows '-c DEU,FRA,ITA,ESP -s open', not '-c DEU'");
    expect(sb.requests).toEqual([]);
    expect(other.requests).toEqual([]);
    expect((await sync(['open', '--reset'], { url: other.url })).code).toBe(0);
    expect(sql('SELECT service FROM syncs')).toEqual([{ service: other.url }]);
    // The copy now follows the other service (whose data other tests did not change).
    expect([...stored().keys()].sort()).toEqual((other.truth(PATH, BODY) as Tender[]).map((t) => t.id).sort());
  });

  it('--list shows every sync; --forget removes one and the tenders only it holds', async () => {
    await sync(['open', ...QUERY, '-n', '100']);
    await sync(['deu', '-c', 'DEU', '-n', '100']);
    const list = await sync(['--list', '-f', 'ndjson']);
    expect(list.code).toBe(0);
    const rows = list.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows.map((row) => [row.name, row.query, row.service, row.complete])).toEqual([
      ['deu', '-c DEU', sb.url, true],
      ['open', '-c DEU,FRA,ITA,ESP -s open', sb.url, true],
    ]);
    expect(rows[1]!.tenders).toBe(truth().length);
    expect((await sync(['open', '--forget'])).code).toBe(0);
    expect(sql('SELECT name FROM syncs')).toEqual([{ name: 'deu' }]);
    const deu = sb.truth(PATH, { buyerCountries: ['DEU'] }).length;
    expect(sql('SELECT count(*) AS n FROM tenders')).toEqual([{ n: deu }]);
    const again = await sync(['open', '--forget']);
    expect(again.code).toBe(2);
  });

  it('--new-only pages only while pages bring news: one page of news is at most 3 requests', async () => {
    await sync(['all']);
    sb.insert(7);
    sb.clearRequests();
    const r = await sync(['all', '--new-only']);
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(sb.requests.length).toBeLessThanOrEqual(3);
    expect(sql("SELECT count(*) AS n FROM changes WHERE kind = 'new'")).toEqual([{ n: 7 }]);
    expect(sql('SELECT mode FROM runs ORDER BY run DESC LIMIT 1')).toEqual([{ mode: 'new-only' }]);
  });

  it('--parallel walks one chain per country into one run; --receipt records the store counts', async () => {
    const receipt = join(testDir(), 'receipt.json');
    const r = await sync(['open', ...QUERY, '--parallel', '4', '--receipt', receipt]);
    expect(r.code).toBe(0);
    expect(stored()).toEqual(await exported());
    const json = JSON.parse(await readFile(receipt, 'utf8')) as Record<string, any>;
    expect(json).toMatchObject({ command: 'sync', complete: true, partitionedBy: 'country', output: null });
    expect(json.sync).toMatchObject({ name: 'open', run: 1, mode: 'full', baseline: true, committed: true });
    expect(json.sync.counts.new).toBe(truth().length);
    expect(sql('SELECT requests FROM runs')).toEqual([{ requests: json.requests }]);
  });
});

describe.skipIf(POSTGRES_MISSING)('sync into PostgreSQL', () => {
  const psql = (url: string, query: string) =>
    execFileSync(join(postgresBin()!, 'psql'), [url, '-X', '-At', '-v', 'ON_ERROR_STOP=1', '-c', query], { encoding: 'utf8' }).trim();

  it('--db postgres://... with TENDERS_DB_SCHEMA: the tables in that schema, the changes once, no password anywhere', async () => {
    const url = await (await postgres()).createDatabase('sync');
    const env = { TENDERS_DB_SCHEMA: 'copy' };
    const receipt = join(testDir(), 'receipt.json');
    const first = await sync(['pg', ...QUERY, '--db', url, '--receipt', receipt], { env });
    expect(first).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const ids = psql(url, "SELECT string_agg(id, ',' ORDER BY id) FROM copy.sync_tenders WHERE sync = 'pg' AND gone_at IS NULL").split(',');
    expect(ids).toEqual([...(await exported()).keys()].sort());
    const before = truth();
    mutate();
    expect((await sync(['pg', '--db', url], { env })).code).toBe(0);
    const rows = psql(url, "SELECT kind || ' ' || id || coalesce(' ' || field || ' ' || coalesce(old::text, 'NULL') || ' ' || coalesce(new::text, 'NULL'), '') FROM copy.changes WHERE run = 2");
    const kinds = (list: string[]) => list.map((row) => row.split(' ').slice(0, 2).join(' ')).sort();
    expect(kinds(rows.split('\n'))).toEqual(kinds(expectedChanges(before, truth())));
    const password = decodeURIComponent(new URL(url).password);
    expect(await readFile(receipt, 'utf8')).not.toContain(password);
    // Everywhere a command shows the copy (hints are printed with --verbose), with the user but not the password.
    const shown = url.replace(/:[^:@/]+@/, '@');
    const local = (args: string[]) => runCli(args, sb.url, { env });
    const list = await local(['sync', '--list', '--db', url, '--verbose']);
    expect(list.stderr).toContain(`1 sync in ${shown}.`);
    const page = await local(['search', '--local', '--db', url, '--limit', '1', '--verbose']);
    expect(page.stderr).toContain(`--db ${shown} --limit 1 --verbose --cursor `);
    const unknown = await local(['search', '--local', '--sync', 'nope', '--db', url]);
    expect(unknown).toMatchObject({ code: 2, stderr: `tenders: no sync named 'nope' in ${shown}: the syncs are pg\n` });
    for (const run of [list, page, unknown]) expect(run.stdout + run.stderr).not.toContain(password);
  });

  it('a run whose connection (and lock) is lost stops at the next page, one line, exit 1; the copy as it was', async () => {
    const url = await (await postgres()).createDatabase('synclost');
    expect((await sync(['lost', ...QUERY, '--db', url, '-n', '10'])).code).toBe(0);
    const before = psql(url, "SELECT count(*) || ' ' || max(run) FROM runs");
    mutate();
    sb.setFaults({ latencyMs: 20 });
    const ending = endConnectionsAfterRequests(3, url);
    const lost = await sync(['lost', '--db', url, '-n', '10', '-v'], { onSpawn: ending.onSpawn });
    sb.setFaults({});
    expect(lost.code).toBe(1);
    expect(lost.stderr).toMatch(/tenders: postgres:\/\/\S+: lost the connection to the PostgreSQL server/);
    // A page or two after it at most (one may be on its way), not the 100 pages to the stage's next COPY.
    expect(lost.stderr.match(/\* POST/g)!.length).toBeLessThanOrEqual(ending.requestsThen() + 2);
    expect(psql(url, "SELECT count(*) || ' ' || max(run) FROM runs")).toBe(before);
  });

  it('--forget in a schema without a copy is exit 1 and creates nothing', async () => {
    const url = await (await postgres()).createDatabase('forget');
    const shown = url.replace(/:[^:@/]+@/, '@');
    const forgot = await runCli(['sync', 'zz', '--forget', '--db', `${url}?schema=nothing_here`], sb.url);
    expect(forgot).toMatchObject({ code: 1, stdout: '', stderr: `tenders: no local copy at ${shown}?schema=nothing_here: there is no sync named zz to forget\n` });
    expect(psql(url, "SELECT count(*) FROM pg_namespace WHERE nspname = 'nothing_here'")).toBe('0');
  });
});

