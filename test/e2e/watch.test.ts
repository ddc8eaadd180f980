import stringWidth from 'string-width';
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { beforeEach, describe, expect, it } from 'vitest';
import { killAfterRequests, onStderr } from '../support/child-stderr.js';
import { useSandbox } from '../support/sandbox.js';
import { testDir, testEnv } from '../support/test-context.js';
import { endConnectionsAfterRequests, postgres, postgresBin, POSTGRES_MISSING } from '../support/postgres.js';
import { ndjson, runCli, type CliOptions } from '../support/cli.js';
import { readCsvWithPython } from '../support/python-csv.js';
import { hasScript, inTerminal } from '../support/terminal.js';
import { screen } from '../support/screen.js';

const PATH = '/api/v1/tenders/search';
const QUERY = ['-c', 'DEU,FRA,ITA,ESP', '-s', 'open'];
const BODY = { buyerCountries: ['DEU', 'FRA', 'ITA', 'ESP'], statuses: ['open'] };

const sb = useSandbox({ size: 3000, seed: 12 });
let seed = 0;

/** This test's watch state directory (runCli puts every watch of a test there). */
let dir: string;
beforeEach(() => {
  dir = testEnv().TENDERS_STATE_DIR!;
});

const watch = (args: string[], opts: CliOptions = {}) => runCli(['watch', ...args], sb.url, { ...opts, env: { COLUMNS: '400', ...opts.env } });

type Tender = Record<string, unknown> & { id: string };

/** Leaf dot paths and their values, written apart from the CLI's own code. */
function leaves(value: unknown, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0) {
    for (const [key, child] of Object.entries(value)) for (const [path, v] of leaves(child, prefix ? `${prefix}.${key}` : key)) out.set(path, v);
  } else {
    out.set(prefix, JSON.stringify(value));
  }
  return out;
}

/** What a watch of BODY must report between two snapshots of the service's truth, in its order. */
function expectedChanges(before: Tender[], after: Tender[]): string[] {
  const old = new Map(before.map((t) => [t.id, t]));
  const now = new Set(after.map((t) => t.id));
  const rows: string[] = [];
  for (const t of after) {
    const was = old.get(t.id);
    if (!was) rows.push(`new ${t.id}`);
    else {
      const [a, b] = [leaves(was), leaves(t)];
      const paths = [...new Set([...a.keys(), ...b.keys()])].filter((p) => a.get(p) !== b.get(p));
      const named = paths.filter((p) => !paths.some((q) => q.startsWith(`${p}.`)));
      if (named.length) rows.push(`changed ${t.id} ${named.sort().join(';')}`);
    }
  }
  for (const t of before) if (!now.has(t.id)) rows.push(`gone ${t.id}`);
  return rows;
}

const truth = () => sb.truth(PATH, BODY) as Tender[];

interface Row {
  change: string;
  changedFields: string[];
  tender: Tender;
}
const describeRow = (change: string, id: string, fields: string[]) => `${change} ${id}${fields.length ? ` ${[...fields].sort().join(';')}` : ''}`;
const fromNdjson = (text: string) => (ndjson(text) as Row[]).map((r) => describeRow(r.change, r.tender.id, r.changedFields));

/** The changes a run printed, read back from each format by an independent reader. */
function printed(format: string, text: string): string[] {
  if (format === 'ndjson') return fromNdjson(text);
  if (format === 'json') return (JSON.parse(text) as Row[]).map((r) => describeRow(r.change, r.tender.id, r.changedFields));
  if (format === 'csv') {
    const [header, ...rows] = readCsvWithPython(text);
    expect(header!.slice(0, 3)).toEqual(['change', 'changedFields', 'id']);
    return rows.map(([change, fields, id]) => describeRow(change!, id!, fields ? fields.split(';') : []));
  }
  // A table (run with --columns id): its cells at the header's positions; a long changedFields is cut
  // to the table's width, so only whether there is one is compared.
  const [header, ...lines] = text.trimEnd().split('\n');
  expect(header).toMatch(/^change +changedFields +id$/);
  const [fieldsAt, idAt] = [header!.indexOf('changedFields'), header!.indexOf(' id') + 1];
  return lines.map((line) => `${line.slice(0, fieldsAt).trim()} ${line.slice(idAt).trim()}${line.slice(fieldsAt, idAt).trim() ? ' …' : ''}`);
}

/** A mutation of the sandbox that touches every kind of change, different each time. */
const mutate = () => sb.mutate({ insert: 40, update: 15, close: 6, remove: 6, seed: ++seed });

describe('watch against the sandbox', () => {
  it('a baseline, then nothing changed: no output, no stderr, exit 0', async () => {
    for (let run = 0; run < 2; run++) {
      expect(await watch(['w', ...QUERY])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    }
    expect(await readdir(dir)).toEqual(['w.watch']);
  });

  it('reports inserts, updates, closes and removals exactly once, in every format', async () => {
    const formats = ['ndjson', 'json', 'csv', 'table'];
    for (const f of formats) expect((await watch([f, ...QUERY])).code).toBe(0);
    const before = truth();
    const done = mutate();
    const expected = expectedChanges(before, truth());
    // Every kind is there: a closed tender no longer matches -s open, so it is gone.
    expect(expected.filter((r) => r.startsWith('new')).length).toBeGreaterThan(0);
    expect(expected.filter((r) => r.startsWith('changed')).length).toBeGreaterThan(0);
    for (const id of [...done.closed, ...done.removed].filter((id) => before.some((t) => t.id === id))) expect(expected).toContain(`gone ${id}`);
    for (const f of formats) {
      const r = await watch([f, '-f', f, ...(f === 'table' ? ['--columns', 'id'] : [])]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(printed(f, r.stdout)).toEqual(f === 'table' ? expected.map((row) => row.replace(/^(\S+ \S+) .+$/, '$1 …')) : expected);
      expect((await watch([f, '-f', f])).stdout).toBe(''); // once
    }
  });

  it('a run stopped by SIGINT, then a complete run: everything reported once', async () => {
    await watch(['w', ...QUERY, '-n', '10']);
    const state = await readFile(join(dir, 'w.watch'));
    const before = truth();
    mutate();
    const expected = expectedChanges(before, truth());
    sb.setFaults({ latencyMs: 50 });
    const stopped = await watch(['w', '-n', '10', '-v'], { onSpawn: killAfterRequests(3, 'SIGINT') });
    sb.setFaults({});
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/tenders: interrupted by SIGINT\n$/);
    expect(await readFile(join(dir, 'w.watch'))).toEqual(state);
    expect(await readdir(dir)).toEqual(['w.watch']);
    const complete = await watch(['w', '-n', '10', '-f', 'ndjson']);
    expect(fromNdjson(complete.stdout)).toEqual(expected);
    expect((await watch(['w'])).stdout).toBe('');
  });

  it('a run failing after its retries, then a complete run: everything reported once', async () => {
    await watch(['w', ...QUERY]);
    const state = await readFile(join(dir, 'w.watch'));
    const before = truth();
    mutate();
    const expected = expectedChanges(before, truth());
    sb.setFaults({ failAfter: 2, failStatus: 503 });
    const failed = await watch(['w', '--retries', '1', '-f', 'ndjson']);
    sb.setFaults({});
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^tenders: the service answered 503 to POST \/api\/v1\/tenders\/search: still failing \(gave up after 1 retry\)\n$/);
    expect(await readFile(join(dir, 'w.watch'))).toEqual(state);
    const complete = await watch(['w', '-f', 'ndjson']);
    expect(fromNdjson(complete.stdout)).toEqual(expected);
    expect((await watch(['w'])).stdout).toBe('');
  });

  it('--parallel finds the same changes as one chain; --receipt records the run', async () => {
    for (const name of ['one', 'four']) expect((await watch([name, ...QUERY])).code).toBe(0);
    const before = truth();
    mutate();
    const expected = expectedChanges(before, truth());
    expect(fromNdjson((await watch(['one', '-f', 'ndjson'])).stdout)).toEqual(expected);
    const receiptFile = join(dir, 'four.receipt.json');
    sb.clearRequests();
    const four = await watch(['four', '--parallel', '4', '-f', 'ndjson', '--receipt', receiptFile]);
    expect(four.code).toBe(0);
    expect(fromNdjson(four.stdout).sort()).toEqual([...expected].sort()); // merged in order: ties may differ
    const receipt = JSON.parse(await readFile(receiptFile, 'utf8')) as Record<string, unknown>;
    expect(receipt).toMatchObject({
      command: 'watch',
      requests: sb.requests.length,
      partitionedBy: 'country',
      complete: true,
      rowsWritten: expected.length,
      watch: { name: 'four', stateCommitted: true, changes: { new: expected.filter((r) => r.startsWith('new')).length } },
    });
  });

  it('saved queries: reused, repeated, a mismatch is exit 2 before any request, --reset replaces it', async () => {
    await watch(['w', ...QUERY]);
    sb.clearRequests();
    expect((await watch(['w'])).code).toBe(0);
    expect(sb.requests[0]!.body).toEqual({ ...BODY, limit: 100 });
    expect((await watch(['w', ...QUERY])).code).toBe(0);
    sb.clearRequests();
    const other = await watch(['w', '-c', 'POL']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/^tenders: watch w follows '-c DEU,FRA,ITA,ESP -s open', not '-c POL': .*--reset.*\n$/);
    expect(sb.requests).toHaveLength(0);
    expect(await watch(['w', '-c', 'POL', '--reset'])).toMatchObject({ code: 0, stdout: '' });
    sb.clearRequests();
    await watch(['w']);
    expect(sb.requests[0]!.body).toEqual({ buyerCountries: ['POL'], limit: 100 });
  });

  it('--list, --forget and bad names', async () => {
    await watch(['deu-open', '-c', 'DEU', '-s', 'open']);
    await watch(['org.7', '--org', 'ORG-DEU-0007']);
    const list = await watch(['--list', '-f', 'csv']);
    expect(list.code).toBe(0);
    const rows = readCsvWithPython(list.stdout);
    expect(rows.map((r) => r.slice(0, 2))).toEqual([['name', 'query'], ['deu-open', '-c DEU -s open'], ['org.7', '--org ORG-DEU-0007']]);
    expect(Number(rows[1]![3])).toBe(sb.truth(PATH, { buyerCountries: ['DEU'], statuses: ['open'] }).length);
    expect(await watch(['org.7', '--forget'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(await readdir(dir)).toEqual(['deu-open.watch']);
    for (const bad of ['../escape', '.hidden', 'a/b']) {
      const r = await watch([bad, '-c', 'DEU']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^tenders: a watch name is up to 100 letters/);
    }
  });

  it('a corrupt state is exit 1 naming the file and --reset', async () => {
    await watch(['w', ...QUERY]);
    const file = join(dir, 'w.watch');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.slice(0, text.lastIndexOf('\n', text.length >> 1) + 1)); // as a full disk would leave it
    const r = await watch(['w']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `tenders: the watch state ${file} is cut short (no summary line): run the same command with --reset to record a new baseline (changes since its last run are then not reported)\n`,
    );
    expect(r.stdout).toBe('');
    expect((await watch(['w', '--reset'])).code).toBe(0);
    expect((await watch(['w'])).stdout).toBe('');
  });

  it('a state whose gone tender has a damaged title is exit 1 naming the file and --reset, not an unexpected error', async () => {
    await watch(['w', ...QUERY]);
    const file = join(dir, 'w.watch');
    const lines = (await readFile(file, 'utf8')).split('\n');
    // A tender the service no longer has (an id of its own), its title cut mid-string.
    const fields = lines[2]!.split('\t');
    fields[0] = '"T-NOT-THERE"';
    fields[2] = '"Road works';
    lines[2] = fields.join('\t');
    await writeFile(file, lines.join('\n'));
    const r = await watch(['w']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `tenders: the watch state ${file} has a damaged line: the title or deadline of a tender it held is not JSON: run the same command with --reset to record a new baseline (changes since its last run are then not reported)\n`,
    );
    expect((await watch(['w', '--reset'])).code).toBe(0);
  });

  it('a second run of the same watch while one runs: exit 1 at once, naming the holder', async () => {
    await watch(['w', ...QUERY, '-n', '10']);
    sb.setFaults({ latencyMs: 50 });
    let second: Awaited<ReturnType<typeof watch>> | undefined;
    let firstPid = 0;
    const first = watch(['w', '-n', '10', '-v'], {
      onSpawn: (child) => {
        firstPid = child.pid!;
        onStderr(child, /\* POST/, async () => {
          second = await watch(['w', '-n', '10']);
        });
      },
    });
    expect((await first).code).toBe(0);
    sb.setFaults({});
    expect(second!.code).toBe(1);
    expect(second!.stderr).toMatch(
      new RegExp(`^tenders: ${join(dir, 'w.watch')} is being written by another tenders process \\(pid ${firstPid}, since [-\\d:.TZ]+\\): wait for it to finish, or remove ${join(dir, 'w.watch.lock')} if that process is not running\n$`),
    );
  });
});

describe.skipIf(!hasScript)('watch in a terminal', () => {
  it.each([80, 120])('at %i columns never cuts the changed fields while the title still has room to give', async (cols) => {
    await watch(['t', ...QUERY]);
    mutate();
    const r = await inTerminal(sb.url, ['watch', 't'], { cols, env: { TENDERS_STATE_DIR: dir, NO_COLOR: '1' } });
    expect(r.code).toBe(0);
    const lines = screen(r.screen).split('\n');
    const header = lines.find((line) => line.startsWith('change   changedFields'))!;
    const rows = lines.filter((line) => line.startsWith('changed  '));
    expect(rows.length).toBeGreaterThan(0);
    // The cells by the header's columns: changedFields from its header to the next, the title last.
    const fields = (row: string) => row.slice(header.indexOf('changedFields'), header.indexOf('id ')).trim();
    const titleWidth = stringWidth(header.slice(header.indexOf('title')).padEnd(Math.max(...rows.map((row) => stringWidth(row))) - header.indexOf('title')));
    const cut = rows.filter((row) => fields(row).endsWith('…'));
    // Cut only once the title has given what it can (10 columns); at 120 that is for a long list only.
    if (cut.length > 0) expect(titleWidth).toBeLessThanOrEqual(10);
    if (cols === 120) for (const row of cut) expect(fields(row).length).toBeGreaterThan(40);
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(cols);
  });

  it('a spinner while it walks, then the table, then what it found; no pager', async () => {
    await watch(['t', '-n', '10']); // 300 pages: long enough for the spinner to turn
    mutate();
    const r = await inTerminal(sb.url, ['watch', 't', '-n', '10'], { cols: 100, env: { TENDERS_STATE_DIR: dir, NO_COLOR: '1' } });
    expect(r.code).toBe(0);
    const spinner = r.text.search(/Fetching tenders…|[\d,]+ of [\d,]+ tenders, \d+ pages?, [\d,]+\/s/);
    const table = r.text.indexOf('change   changedFields');
    expect(spinner).toBeGreaterThanOrEqual(0);
    expect(table).toBeGreaterThan(spinner);
    expect(r.text).toMatch(/watch t: \d+ new, \d+ changed, \d+ gone\n/);
    expect(r.screen).not.toContain('\u001b[?1049h'); // no pager took the screen
  });
});

describe.skipIf(POSTGRES_MISSING)('watch with its state in PostgreSQL', () => {
  const psql = (url: string, query: string) =>
    execFileSync(join(postgresBin()!, 'psql'), [url, '-X', '-At', '-v', 'ON_ERROR_STOP=1', '-c', query], { encoding: 'utf8' }).trim();
  /** A database of this test's own, the URL tenders is given (?schema=w) and the URL as tenders prints it (no password). */
  async function copy(prefix: string) {
    const url = await (await postgres()).createDatabase(prefix);
    return { url, db: `${url}?schema=w`, shown: `${url.replace(/:[^:@/]+@/, '@')}?schema=w`, password: decodeURIComponent(new URL(url).password) };
  }
  /** Every row of the watches' tables, as one text. */
  const rows = (url: string) =>
    psql(url, "SELECT (SELECT string_agg(w::text, '|' ORDER BY name) FROM w.watches w) || (SELECT coalesce(string_agg(t::text, '|' ORDER BY watch, seq), '') FROM w.watch_tenders t)");
  const files = (path: string) => readdir(path).catch(() => [] as string[]);

  it('TENDERS_DB names it: a baseline, each change once, no state file; --list, --receipt, --forget; no password anywhere', async () => {
    const { url, db, shown, password } = await copy('watch');
    const env = { TENDERS_DB: db };
    expect(await watch(['w', ...QUERY], { env })).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(await files(dir)).toEqual([]);
    const matched = truth();
    expect(psql(url, "SELECT tenders || ' ' || (SELECT count(*) FROM w.watch_tenders) FROM w.watches WHERE name = 'w'")).toBe(`${matched.length} ${matched.length}`);
    expect(psql(url, "SELECT string_agg(id #>> '{}', ',' ORDER BY id #>> '{}') FROM w.watch_tenders")).toBe(matched.map((t) => t.id).sort().join(','));
    mutate();
    const expected = expectedChanges(matched, truth());
    const receipt = join(testDir(), 'receipt.json');
    const changed = await watch(['w', '-f', 'ndjson', '--receipt', receipt], { env });
    expect(changed).toMatchObject({ code: 0, stderr: '' });
    expect(fromNdjson(changed.stdout)).toEqual(expected);
    expect(JSON.parse(await readFile(receipt, 'utf8')).watch).toMatchObject({ state: `${shown} (watch w)`, stateCommitted: true });
    expect((await watch(['w'], { env })).stdout).toBe('');
    // A dry run shows the saved query, read from the copy.
    const dry = await watch(['w', '--dry-run'], { env });
    expect(dry).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(dry.stdout.slice(dry.stdout.indexOf('\n') + 1))).toEqual({ ...BODY, limit: 100 });
    const list = await watch(['--list', '-f', 'ndjson', '-v'], { env });
    expect(ndjson(list.stdout)).toEqual([{ name: 'w', query: '-c DEU,FRA,ITA,ESP -s open', lastRun: expect.any(String), tenders: truth().length, db: shown }]);
    expect(list.stderr).toBe(`1 watch in ${shown}.\n`);
    expect(await watch(['w', '--forget'], { env })).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(psql(url, 'SELECT count(*) FROM w.watches') + psql(url, 'SELECT count(*) FROM w.watch_tenders')).toBe('00');
    const again = await watch(['w', '--forget', '--db', db]);
    expect(again).toMatchObject({ code: 1, stderr: `tenders: there is no watch named w in ${shown} (see tenders watch --list)\n` });
    for (const r of [changed, list, again]) expect(r.stdout + r.stderr).not.toContain(password);
    expect(await readFile(receipt, 'utf8')).not.toContain(password);
    expect(await files(dir)).toEqual([]);
  });

  it("a run killed mid-walk leaves the state as it was, and the next run reports each change once and clears the killed run's files", async () => {
    const { url, db } = await copy('watchkill');
    const tmp = join(testDir(), 'tmp');
    await mkdir(tmp);
    const env = { TENDERS_DB: db, TMPDIR: tmp };
    await watch(['w', ...QUERY, '-n', '10'], { env });
    const saved = rows(url);
    const before = truth();
    mutate();
    const expected = expectedChanges(before, truth());
    sb.setFaults({ latencyMs: 50 });
    const killed = await watch(['w', '-n', '10', '-v'], { env, onSpawn: killAfterRequests(3, 'SIGKILL') });
    sb.setFaults({});
    expect(killed.signal).toBe('SIGKILL');
    expect(rows(url)).toBe(saved);
    expect(await files(tmp)).toHaveLength(1); // what the killed run was working on
    const complete = await watch(['w', '-n', '10', '-f', 'ndjson'], { env });
    expect(fromNdjson(complete.stdout)).toEqual(expected);
    expect(await files(tmp)).toEqual([]);
    expect((await watch(['w'], { env })).stdout).toBe('');
    // A run refused after it read the state leaves no work files either.
    expect((await watch(['w', '-c', 'AUT'], { env })).code).toBe(2);
    expect(await files(tmp)).toEqual([]);
  });

  it('a server that ends idle sessions does not end a run: its lock connection waits through the walk', async () => {
    const { url, db } = await copy('watchidle');
    const database = new URL(url).pathname.slice(1);
    psql(url, `ALTER DATABASE ${database} SET idle_session_timeout = '100ms'`);
    await watch(['w', ...QUERY, '-n', '10'], { env: { TENDERS_DB: db } });
    const before = truth();
    mutate();
    sb.setFaults({ latencyMs: 50 }); // each page keeps the lock connection idle for longer than the server allows
    const r = await watch(['w', '-n', '10', '-f', 'ndjson'], { env: { TENDERS_DB: db } });
    sb.setFaults({});
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(fromNdjson(r.stdout)).toEqual(expectedChanges(before, truth()));
    expect((await watch(['w'], { env: { TENDERS_DB: db } })).stdout).toBe('');
  });

  it('a schema with watches and no sync yet: --local says no copy, and its first sync makes the copy whole beside them', async () => {
    const { url, db } = await copy('watchfirst');
    await watch(['w', ...QUERY, '--db', db]);
    const local = await runCli(['search', '--local', '--db', db], sb.url);
    expect(local).toMatchObject({ code: 1, stdout: '' });
    expect(local.stderr).toMatch(/no local copy in .* yet: run tenders sync first\n$/);
    expect(await runCli(['sync', 's', ...QUERY, '--db', db], sb.url)).toMatchObject({ code: 0, stderr: '' });
    // Made by the first sync's transaction: its rows frozen, so the visibility map covers the table.
    expect(Number(psql(url, "SELECT relallvisible FROM pg_class WHERE oid = 'w.tenders'::regclass"))).toBeGreaterThan(0);
    expect(psql(url, "SELECT count(*) FROM w.watches")).toBe('1');
    mutate();
    expect((await watch(['w', '--db', db, '-f', 'ndjson'])).stdout).not.toBe('');
  });

  it('a watch kept both in a file and in the copy is refused until one goes; --forget of the copy lets the file move in', async () => {
    const { db, shown } = await copy('watchboth');
    await watch(['w', ...QUERY]);
    await watch(['other', '-c', 'FRA']);
    const file = join(dir, 'w.watch');
    const copied = join(testDir(), 'w.watch');
    await writeFile(copied, await readFile(file));
    await rm(file);
    await watch(['w', '--db', db]); // moves in
    await writeFile(file, await readFile(copied)); // and someone's file of that name comes back
    const refused = await watch(['w', '--db', db]);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toBe(
      `tenders: watch w is kept both in ${shown} and in ${file}: delete the file to go on with the copy's, or forget the copy's (tenders watch w --forget --db ${shown}) to move the file in with the next run\n`,
    );
    const list = await watch(['--list', '--db', db, '-f', 'ndjson', '-v']);
    expect(list.stderr).toBe(
      `1 watch in ${dir} (other) moves into ${shown} when it runs next\ntenders: warning: w: kept both in ${dir} and in ${shown}; its runs are refused until one is deleted\n1 watch in ${shown}.\n`,
    );
    expect((await watch(['w', '--forget', '--db', db])).code).toBe(0);
    expect((await watch(['w', '--db', db])).code).toBe(0);
    expect(await files(dir)).toEqual(['other.watch']);
    // A watch that is only a file is forgotten there.
    expect((await watch(['other', '--forget', '--db', db])).code).toBe(0);
    expect(await files(dir)).toEqual([]);
  });

  it('a damaged row is exit 1 naming the watch in its copy and --reset, which records a new baseline', async () => {
    const { url, db, shown } = await copy('watchdamage');
    await watch(['w', ...QUERY, '--db', db]);
    psql(url, "UPDATE w.watch_tenders SET hashes = '!' WHERE seq = 3");
    const r = await watch(['w', '--db', db]);
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toBe(`tenders: the watch state ${shown} (watch w) has a damaged line 5: run the same command with --reset to record a new baseline (changes since its last run are then not reported)\n`);
    expect(await watch(['w', '--db', db, '--reset'])).toMatchObject({ code: 0, stderr: '' });
    expect(await watch(['w', '--db', db])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    // A damaged query: --list warns of that watch and lists the others.
    await watch(['v', '-c', 'FRA', '--db', db]);
    psql(url, `UPDATE w.watches SET query = '{"org":null}' WHERE name = 'w'`);
    const list = await watch(['--list', '--db', db, '-f', 'ndjson']);
    expect(list.code).toBe(0);
    expect((ndjson(list.stdout) as { name: string }[]).map((row) => row.name)).toEqual(['v']);
    expect(list.stderr).toBe(`tenders: warning: the watch state ${shown} (watch w) has a damaged first line: run the same command with --reset to record a new baseline (changes since its last run are then not reported)\n`);
  });

  it('a role that may only read the copy lists its watches, and a run is refused before any request', async () => {
    const { url, db } = await copy('watchreader');
    await watch(['w', ...QUERY, '--db', db]);
    const role = `reader_${new URL(url).pathname.slice(1)}`;
    psql(url, `CREATE ROLE ${role} LOGIN PASSWORD 'read-only'; GRANT USAGE ON SCHEMA w TO ${role}; GRANT SELECT ON ALL TABLES IN SCHEMA w TO ${role}`);
    const reader = new URL(db);
    [reader.username, reader.password] = [role, 'read-only'];
    const list = await watch(['--list', '--db', reader.href, '-f', 'ndjson']);
    expect((ndjson(list.stdout) as { name: string }[]).map((row) => row.name)).toEqual(['w']);
    sb.clearRequests();
    const refused = await watch(['w', '--db', reader.href]);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/: not allowed: this user may read the watches' tables but not write them \(INSERT, UPDATE and DELETE on watches and watch_tenders\)\n$/);
    expect(sb.requests).toHaveLength(0);
  });

  it('a run whose connection (and lock) is lost stops at the next page, one line, exit 1; the next run reports the changes', async () => {
    const { url, db } = await copy('watchlost');
    const env = { TENDERS_DB: db };
    await watch(['w', ...QUERY, '-n', '10'], { env });
    const before = truth();
    mutate();
    sb.setFaults({ latencyMs: 20 });
    const ending = endConnectionsAfterRequests(3, url);
    const lost = await watch(['w', '-n', '10', '-v', '-f', 'ndjson'], { env, onSpawn: ending.onSpawn });
    sb.setFaults({});
    expect(lost.code).toBe(1);
    expect(lost.stderr).toMatch(/tenders: postgres:\/\/\S+: lost the connection to the PostgreSQL server/);
    // A page or two after it at most (one may be on its way), not on to the end.
    expect(lost.stderr.match(/\* POST/g)!.length).toBeLessThanOrEqual(ending.requestsThen() + 2);
    const next = await watch(['w', '-f', 'ndjson'], { env });
    expect(fromNdjson(next.stdout)).toEqual(expectedChanges(before, truth()));
  });

  it('Ctrl-C while the state read waits on the server (a table another holds): exit 130 at once, the state as it was', async () => {
    const { url, db } = await copy('watchint');
    await watch(['w', ...QUERY, '--db', db]);
    const saved = rows(url);
    const [blocker, watcher] = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
    await Promise.all([blocker.connect(), watcher.connect()]);
    await blocker.query('BEGIN; LOCK TABLE w.watch_tenders IN ACCESS EXCLUSIVE MODE');
    try {
      const r = await watch(['w', '--db', db], {
        onSpawn: (child) =>
          void (async () => {
            // Once the run's connection waits for the table, interrupt it (asked outside a transaction,
            // whose view of pg_stat_activity would not change).
            for (;;) {
              const { rows: waiting } = await watcher.query<{ n: number }>(
                "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE $1 AND wait_event_type = 'Lock'",
                [`tenders ${child.pid} %`],
              );
              if (waiting[0]!.n > 0) return child.kill('SIGINT');
              await watcher.query('SELECT pg_sleep(0.02)');
            }
          })(),
      });
      expect(r).toMatchObject({ code: 130, stdout: '', stderr: 'tenders: interrupted by SIGINT\n' });
    } finally {
      await blocker.query('ROLLBACK');
      await Promise.all([blocker.end(), watcher.end()]);
    }
    expect(rows(url)).toBe(saved);
  });

  it('a second run of the same watch while one runs: exit 1 at once, naming the holder', async () => {
    const { db } = await copy('watchlock');
    const env = { TENDERS_DB: db };
    await watch(['w', ...QUERY, '-n', '10'], { env });
    sb.setFaults({ latencyMs: 50 });
    let second: Awaited<ReturnType<typeof watch>> | undefined;
    let firstPid = 0;
    const first = watch(['w', '-n', '10', '-v'], {
      env,
      onSpawn: (child) => {
        firstPid = child.pid!;
        onStderr(child, /\* POST/, async () => {
          second = await watch(['w', '-n', '10'], { env });
        });
      },
    });
    expect((await first).code).toBe(0);
    sb.setFaults({});
    expect(second!.code).toBe(1);
    expect(second!.stderr).toMatch(new RegExp(`^tenders: watch 'w' is running already: pid ${firstPid} on \\S+, since [-\\d:T]+Z; try again when it is done\n$`));
  });

  it('a state file kept before the copy was named moves in: its changes reported once, the file deleted', async () => {
    const { url, db, shown } = await copy('watchmove');
    await watch(['w', ...QUERY]);
    const before = truth();
    mutate();
    const moved = await watch(['w', '-f', 'ndjson', '--db', db]);
    expect(moved.code).toBe(0);
    expect(fromNdjson(moved.stdout)).toEqual(expectedChanges(before, truth()));
    expect(moved.stderr).toBe(`tenders: warning: watch w: its state moved from ${join(dir, 'w.watch')} into ${shown}\n`);
    expect(await files(dir)).toEqual([]);
    expect(psql(url, "SELECT tenders FROM w.watches WHERE name = 'w'")).toBe(String(truth().length));
    expect(await watch(['w', '--db', db])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    // A state file that is a link moves in through it, as a file-kept run reads it.
    const elsewhere = join(testDir(), 'elsewhere');
    await runCli(['watch', 'linked', ...QUERY], sb.url, { env: { TENDERS_STATE_DIR: elsewhere } });
    await symlink(join(elsewhere, 'linked.watch'), join(dir, 'linked.watch'));
    const changed = truth();
    mutate();
    const linked = await watch(['linked', '--db', db, '-f', 'ndjson']);
    expect(fromNdjson(linked.stdout)).toEqual(expectedChanges(changed, truth()));
    expect(await files(dir)).toEqual([]);
  });

  it('--db naming a SQLite file is a usage error; TENDERS_DB naming one leaves watches in their files', async () => {
    const sqlite = join(testDir(), 'copy.db');
    const refused = await watch(['w', ...QUERY, '--db', sqlite]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^tenders: watch --db names a PostgreSQL copy/);
    expect(await watch(['w', ...QUERY], { env: { TENDERS_DB: sqlite } })).toMatchObject({ code: 0, stderr: '' });
    expect(await files(dir)).toEqual(['w.watch']);
  });
});

describe('watch --new-only on 5 000 tenders', () => {
  // 50 pages: many more than the few that hold the inserted tenders.
  const big = useSandbox({ size: 5000, seed: 13 });

  it('pages as far as the inserted tenders go: requests grow with them, not with the data', async () => {
    const run = (args: string[]) => runCli(['watch', 'all', ...args], big.url, { env: { TENDERS_STATE_DIR: dir } });
    expect((await run([])).code).toBe(0);
    expect(big.requests.length).toBe(50); // the baseline walks everything
    const counts: number[] = [];
    for (const inserted of [30, 250]) {
      const before = new Set((big.truth(PATH, {}) as Tender[]).map((t) => t.id));
      big.mutate({ insert: inserted, update: 20, remove: 5, seed: inserted });
      const fresh = (big.truth(PATH, {}) as Tender[]).filter((t) => !before.has(t.id)).map((t) => `new ${t.id}`);
      expect(fresh).toHaveLength(inserted);
      big.clearRequests();
      const r = await run(['--new-only', '-f', 'ndjson']);
      expect(r.code).toBe(0);
      expect(fromNdjson(r.stdout)).toEqual(fresh);
      counts.push(big.requests.length);
      // The pages with new tenders, and the one that ends it.
      expect(big.requests.length).toBeLessThanOrEqual(Math.ceil(inserted / 100) + 2);
    }
    expect(counts[0]).toBeLessThanOrEqual(3);
    expect(counts[1]).toBeGreaterThan(counts[0]!);
    // The full run still reports what --new-only does not look for.
    const full = await run(['-f', 'ndjson']);
    expect(fromNdjson(full.stdout).filter((r) => !r.startsWith('new')).length).toBeGreaterThanOrEqual(20);
  });
});

