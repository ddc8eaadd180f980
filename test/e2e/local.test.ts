import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import { openStore } from '../../src/store/open.js';
import { runCli } from '../support/cli.js';
import { syncInto } from '../support/local-copy.js';
import { useSandbox } from '../support/sandbox.js';
import { hasScript, inTerminal } from '../support/terminal.js';
import { testDir } from '../support/test-context.js';
import { requireTool } from '../support/tools.js';

/**
 * The local queries as a user runs them: the copy filled from the sandbox
 * (what the service sent, page after page, through `tenders export`), then
 * asked with no service at all: no base URL in the environment, and the
 * sandbox's request log untouched.
 */
const sb = useSandbox({ size: 1500, seed: 21 });

const SORTS = [
  ['publicationDate', 'desc'],
  ['publicationDate', 'asc'],
  ['deadline', 'asc'],
  ['deadline', 'desc'],
  ['estimatedValue', 'desc'],
  ['estimatedValue', 'asc'],
] as const;

type Tender = Record<string, unknown> & { id: string };

/** Every tender the service gives for the query, as `tenders export -f ndjson` writes them. */
async function exported(args: string[] = []): Promise<{ text: string; tenders: Tender[] }> {
  const r = await runCli(['export', '-f', 'ndjson', ...args], sb.url);
  expect(r.code, r.stderr).toBe(0);
  return { text: r.stdout, tenders: r.stdout.split('\n').filter(Boolean).map((line) => parseJson(line) as Tender) };
}

/**
 * The service's data before any test changed it, and a copy of all of it as a
 * complete sync `all` records it: exported and filled once for the file
 * (readers change neither), each test then given a copy of that copy.
 */
let service: { text: string; tenders: Tender[] };
let template: string;
beforeAll(async () => {
  service = await exported();
  template = join(testDir(), 'template.db');
  await syncInto(template, 'all', service.tenders);
});

/** This test's own copy of every tender (the store closed the template: no journal beside it). */
async function filled(): Promise<string> {
  const db = join(testDir(), 'copy', 'tenders.db');
  await mkdir(dirname(db));
  await copyFile(template, db);
  return db;
}

/** The CLI with no service configured at all. */
const local = (args: string[], db: string) => runCli(args, undefined, { env: { TENDERS_DB: db } });

const ids = (text: string) => text.split('\n').filter(Boolean).map((line) => (parseJson(line) as Tender).id);

describe('local queries against a copy of the sandbox', () => {
  it('search --local with no selection gives the ids of export, in its order, for every sort, without a request', async () => {
    const db = await filled();
    for (const [sort, order] of SORTS) {
      const online = await exported(['--sort', sort, '--order', order]);
      sb.clearRequests();
      const r = await local(['search', '--local', '--all', '--sort', sort, '--order', order], db);
      expect(r.code, r.stderr).toBe(0);
      expect(ids(r.stdout), `${sort} ${order}`).toEqual(online.tenders.map((t) => t.id));
      // Each document exactly as the service sent it (digits, key order).
      expect(r.stdout, `${sort} ${order}`).toBe(online.text);
      expect(sb.requests).toHaveLength(0);
    }
  });

  it('count --local --by buyer.name equals counting the export with jq', async () => {
    if (!requireTool('jq', 'apt-get install jq')) return;
    const db = await filled();
    const { text } = service;
    const jq = spawnSync('jq', ['-r', '.buyer.name'], { input: text, encoding: 'utf8' });
    const truth = new Map<string, number>();
    for (const name of jq.stdout.split('\n').filter(Boolean)) truth.set(name, (truth.get(name) ?? 0) + 1);
    const r = await local(['count', '--local', '--by', 'buyer.name', '-f', 'csv'], db);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\n').slice(1).map((line) => /^(.*),(\d+),false$/.exec(line)!);
    expect(new Map(rows.map((m) => [m[1]!.replace(/^"(.*)"$/, '$1').replace(/""/g, '"'), Number(m[2])]))).toEqual(truth);
  });

  it('export --local -o FILE writes the file whole, in any format, and search pages on with its local cursor', async () => {
    const db = await filled();
    for (const format of ['csv', 'tsv', 'ndjson', 'json', 'parquet']) {
      const file = join(testDir(), `all.${format}`);
      const r = await local(['export', '--local', '-f', format, '-o', file], db);
      expect(r.code, `${format}: ${r.stderr}`).toBe(0);
      expect(existsSync(file)).toBe(true);
      expect(existsSync(`${file}.partial`)).toBe(false);
    }
    expect(ids(readFileSync(join(testDir(), 'all.ndjson'), 'utf8'))).toHaveLength(1500);
    // Under --verbose the hints show in a pipe: the next page's command line.
    const first = await local(['search', '--local', '-n', '7', '--verbose', 'hospital'], db);
    expect(first.code, first.stderr).toBe(0);
    const cursor = /--cursor (L1\.\S+)/.exec(first.stderr)![1]!;
    const second = await local(['search', '--local', '-n', '7', 'hospital', '--cursor', cursor], db);
    const all = await local(['search', '--local', '--max', '14', 'hospital'], db);
    expect([...ids(first.stdout), ...ids(second.stdout)]).toEqual(ids(all.stdout));
    expect(first.stderr).toMatch(/the local copy gave the first \d+ tenders in [\d.]+ ms/);
  });

  it('before any sync: exit 1 saying to run tenders sync first; bad input: exit 2, one line', async () => {
    const missing = join(testDir(), 'nothing', 'tenders.db');
    const r = await local(['search', '--local'], missing);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: .*run tenders sync first/);
    expect(existsSync(join(testDir(), 'nothing'))).toBe(false);
    const db = await filled();
    for (const args of [['search', '--local', 'AND'], ['search', '--local', '--until', '2026-13-01'], ['count', '--local', '--by', 'no.such'], ['search', '--local', '--sync', 'other']]) {
      const bad = await local(args, db);
      expect(bad.code, args.join(' ')).toBe(2);
      expect(bad.stderr, args.join(' ')).toMatch(/^tenders: [^\n]+\n$/);
    }
  });

  it('changes after a mutation of the service: each new, changed field and gone tender once, with old and new values', async () => {
    const db = await filled();
    const before = new Map(service.tenders.map((t) => [t.id, t]));
    sb.mutate({ insert: 5, update: 4, remove: 3, seed: 5 });
    const after = (await exported()).tenders;
    await syncInto(db, 'all', after);
    const afterIds = new Set(after.map((t) => t.id));
    const r = await local(['changes', 'all'], db);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { id: string; kind: string; field: string | null; old?: unknown; new?: unknown });
    const kinds = (kind: string) => rows.filter((row) => row.kind === kind).map((row) => row.id).sort();
    expect(kinds('new')).toEqual(after.filter((t) => !before.has(t.id)).map((t) => t.id).sort());
    expect(kinds('gone')).toEqual([...before.keys()].filter((id) => !afterIds.has(id)).sort());
    const changed = after.filter((t) => before.has(t.id) && JSON.stringify(before.get(t.id)) !== JSON.stringify(t));
    expect([...new Set(kinds('changed'))]).toEqual(changed.map((t) => t.id).sort());
    for (const row of rows.filter((row) => row.kind === 'changed')) {
      const [old, now] = [before.get(row.id)!, after.find((t) => t.id === row.id)!];
      const at = (doc: unknown) => row.field!.split('.').reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], doc);
      expect(row.old, `${row.id} ${row.field}`).toEqual(at(old));
      expect(row.new, `${row.id} ${row.field}`).toEqual(at(now));
    }
    expect(sb.requests.every((request) => request.path !== 'local')).toBe(true);
  });

  it.skipIf(!hasScript)('changes at an 80-column terminal: what changed under each row, whole; into a pipe the table of before', async () => {
    const db = await filled();
    const [a, b] = service.tenders.filter((t) => typeof t.title === 'string' && typeof t.deadline === 'string');
    const after = service.tenders.map((t) =>
      t.id === a!.id ? { ...t, title: `${t.title as string} (amended 1)` } : t.id === b!.id ? { ...t, deadline: '2030-01-31T12:00:00Z' } : t,
    );
    await syncInto(db, 'all', after);
    const r = await inTerminal(sb.url, ['changes', 'all', '--no-pager'], { cols: 80, env: { TENDERS_DB: db, NO_COLOR: '1' } });
    expect(r.code).toBe(0);
    const lines = r.text.trimEnd().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^at \(UTC\)\s+sync\s+id\s+kind\s+field$/);
    const under = (id: string) => lines[lines.findIndex((line) => line.includes(`  ${id}  changed`)) + 1];
    expect(under(a!.id)).toMatch(/^ {2}.*\S \{\+\(amended 1\)\+\}$/);
    expect(under(b!.id)).toBe(`  ${b!.deadline as string} → 2030-01-31T12:00:00Z`);
    const piped = await local(['changes', 'all', '-f', 'table'], db);
    expect(piped.stdout.split('\n')[0]).toMatch(/^at\s+sync\s+id\s+kind\s+field\s+old\s+new$/);
    expect(piped.stdout).toMatch(/\d{4}-\d\d-\d\dT[\d:.]+Z\s+all\s+/);
    expect(piped.stdout).toContain(`${a!.title as string} (amended 1)`);
  });

  it.skipIf(!hasScript)('a table at 80 columns keeps the value the query filters by, the title narrower; without the filter the value goes', async () => {
    const db = await filled();
    const header = async (args: string[]) => {
      const r = await inTerminal(sb.url, ['search', '--local', '-n', '5', '--no-pager', ...args], { cols: 80, env: { TENDERS_DB: db, NO_COLOR: '1' } });
      expect(r.code).toBe(0);
      for (const line of r.text.split('\n').filter((l) => /^(id|T-)/.test(l))) expect(line.length).toBeLessThanOrEqual(80);
      return r.text.split('\n').find((line) => line.startsWith('id '))!;
    };
    expect(await header(['--min-value', '100000'])).toMatch(/^id\s+published\s+deadline \(UTC\)\s+buyer\s+value €\s+title$/);
    expect(await header([])).not.toContain('value €');
  });

  /** A second sync's run over the filled copy, every tender staged again under another id, not committed. */
  async function stagedRun(db: string) {
    const store = await openStore(db, { mode: 'write' });
    const run = await store.beginRun({ sync: { name: 'second', query: {}, service: sb.url }, mode: 'full' });
    await run.add(service.tenders.map((t) => ({ ...t, id: `${t.id}-copy` })));
    return { store, run };
  }

  it('readers during a sync read the copy as it was before the run, and are not blocked', async () => {
    const db = await filled();
    const { tenders } = service;
    const { store, run } = await stagedRun(db);
    try {
      // The run is staged, not committed: readers answer at once, from the copy before it.
      expect(await local(['count', '--local'], db)).toMatchObject({ code: 0, stdout: `${tenders.length}\n` });
      expect(ids((await local(['search', '--local', '--all'], db)).stdout)).toHaveLength(tenders.length);
      await run.abort();
    } finally {
      await store.close();
    }
  });

  // libsql kept no lock on the database file, so a reader that closed deleted the WAL a run
  // then committed into: the run was lost. better-sqlite3's SQLite holds its lock.
  it('a run committed after a reader read during it is visible to the next reader', async () => {
    const db = await filled();
    const { tenders } = service;
    const { store, run } = await stagedRun(db);
    try {
      expect((await local(['count', '--local'], db)).stdout).toBe(`${tenders.length}\n`);
      await run.commit({ complete: true, pages: 1, requests: 1 });
    } finally {
      await store.close();
    }
    expect((await local(['count', '--local'], db)).stdout).toBe(`${2 * tenders.length}\n`);
    expect((await local(['count', '--local', '--sync', 'second'], db)).stdout).toBe(`${tenders.length}\n`);
  });
});
