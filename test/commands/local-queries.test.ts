import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { execute } from '../../src/cli.js';
import { parseJson } from '../../src/model/json-parse.js';
import type { SortBy, SortOrder } from '../../src/contract/request.js';
import { filledCopy, syncInto } from '../support/local-copy.js';
import { memoryIO, type MemoryIOOptions } from '../support/io.js';
import { testDir } from '../support/test-context.js';

/** Runs the CLI in-process with no service at all: a client asked for fails the test. */
async function run(argv: string[], opts: MemoryIOOptions = {}) {
  const t = memoryIO({ ...opts, env: { HOME: testDir(), ...opts.env } });
  const code = await execute(argv, t.io, {
    createClient: async () => {
      throw new Error('a local query made a client');
    },
  });
  return { code, stdout: t.stdout.text, stderr: t.stderr.text };
}

const ndjsonIds = (text: string) => text.trim().split('\n').filter(Boolean).map((line) => (parseJson(line) as { id: string }).id);

/** Tenders written for the full-text tests: each word chosen to tell the operators apart. */
const crafted = [
  { id: 'W-1', title: 'Hospital cleaning services', buyer: { name: 'City Hospital', country: 'DEU' }, status: 'open', publicationDate: '2026-03-05', deadline: '2026-04-01T12:00:00Z', estimatedValue: { amountEur: 1_500_000 } },
  { id: 'W-2', title: 'Cleaning of hospital wards', buyer: { name: 'Regional Health', country: 'AUT' }, status: 'open', publicationDate: '2026-03-10', deadline: '2026-03-20T12:00:00Z', estimatedValue: { amountEur: 250_000 } },
  { id: 'W-3', title: 'School cleaning', buyer: { name: 'Town of Lyon', country: 'FRA' }, status: 'closed', publicationDate: '2026-02-01', deadline: null, estimatedValue: { amountEur: 90_000 } },
  { id: 'W-4', title: 'Hospital catering', buyer: { name: 'City Hospital', country: 'DEU' }, status: 'open', publicationDate: '2026-04-02', deadline: '2026-05-01T12:00:00Z', estimatedValue: null },
  { id: 'W-5', title: 'Waste collection and recycling', buyer: { name: 'Dublin City', country: 'IRL' }, status: 'open', publicationDate: '2026-01-15', deadline: '2026-02-15T12:00:00Z', estimatedValue: { amountEur: 5_000_000 } },
  { id: 'W-6', title: 'Recycled paper supply', buyer: { name: 'Cork County', country: 'IRL' }, status: 'awarded', publicationDate: '2025-12-01', deadline: '2026-01-10T12:00:00Z', estimatedValue: { amountEur: 12_000 } },
];

async function craftedCopy(): Promise<string> {
  const db = join(testDir(), 'crafted.db');
  await syncInto(db, 'crafted', crafted);
  return db;
}

describe('search --local and export --local', () => {
  it('needs no service: no base URL, no client, the same ids in the same order as the sandbox gives for every sort', async () => {
    const { db, sandbox } = await filledCopy(150);
    for (const sortBy of ['publicationDate', 'deadline', 'estimatedValue'] as SortBy[]) {
      for (const order of ['asc', 'desc'] as SortOrder[]) {
        const truth = sandbox.truth(sortBy, order, () => true).map((t) => t.id);
        const search = await run(['search', '--local', '--all', '--db', db, '--sort', sortBy, '--order', order]);
        expect(search.code, search.stderr).toBe(0);
        expect(ndjsonIds(search.stdout), `search ${sortBy} ${order}`).toEqual(truth);
        const exported = await run(['export', '--local', '-f', 'ndjson', '--db', db, '--sort', sortBy, '--order', order]);
        expect(ndjsonIds(exported.stdout), `export ${sortBy} ${order}`).toEqual(truth);
      }
    }
  });

  it('a whole listing in the default order says, in cron too, how many tenders it left out for want of a publicationDate', async () => {
    const db = join(testDir(), 'undated.db');
    await syncInto(db, 'undated', [...crafted, { id: 'U-1', title: 'No date' }, { id: 'U-2', title: 'Bad date', publicationDate: '2026-02-30' }]);
    const exported = await run(['export', '--local', '-f', 'ndjson', '--db', db]);
    expect(exported.code).toBe(0);
    expect(ndjsonIds(exported.stdout)).toHaveLength(6);
    expect(exported.stderr).toBe(
      'tenders: warning: 2 tenders of this selection are not in the output: they have no publicationDate that is a date, and the order is by it (count --local counts them; --sort deadline lists those with a deadline)\n',
    );
    // A chosen order counts as it lists; a listing without any such tender says nothing.
    expect((await run(['export', '--local', '-f', 'ndjson', '--db', db, '--sort', 'deadline'])).stderr).toBe('');
    expect((await run(['export', '--local', '-f', 'ndjson', '--db', db, '-c', 'DEU'])).stderr).toBe('');
  });

  it('prints one page and a next-page hint whose local cursor continues exactly after it', async () => {
    const { db, sandbox } = await filledCopy(60);
    const truth = sandbox.truth('publicationDate', 'desc', () => true).map((t) => t.id);
    const first = await run(['search', '--local', '-n', '20', '--db', db], { stderrTTY: true });
    expect(first.code, first.stderr).toBe(0);
    expect(ndjsonIds(first.stdout)).toEqual(truth.slice(0, 20));
    const cursor = /--cursor (L1\.\S+)/.exec(first.stderr)?.[1];
    expect(first.stderr).toContain('Next page:');
    expect(first.stderr).toContain('--shown 20');
    const second = await run(['search', '--local', '-n', '20', '--db', db, '--cursor', cursor!, '--shown', '20'], { stderrTTY: true });
    expect(second.stderr).toMatch(/Showing 21–40/);
    expect(ndjsonIds(second.stdout)).toEqual(truth.slice(20, 40));
    const third = await run(['search', '--local', '-n', '20', '--db', db, '--cursor', /--cursor (L1\.\S+)/.exec(second.stderr)![1]!], { stderrTTY: true });
    expect(ndjsonIds(third.stdout)).toEqual(truth.slice(40, 60));
    expect(third.stderr).not.toContain('Next page');
    // One tender is "1", not "1–1", and singular.
    const one = await run(['search', '--local', '-n', '1', '--db', db], { stderrTTY: true });
    expect(one.stderr).toContain('Showing 1 tender.\n');
    const sixth = await run(['search', '--local', '-n', '1', '--db', db, '--cursor', /--cursor (L1\.\S+)/.exec(one.stderr)![1]!, '--shown', '5'], { stderrTTY: true });
    expect(sixth.stderr).toContain('Showing tender 6.\n');
  });

  it('a next page of a query with relative dates, run later as printed, continues after the last tender shown', async () => {
    const { db, sandbox } = await filledCopy(60);
    const truth = sandbox.truth('publicationDate', 'desc', () => true).map((t) => t.id);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
      const args = ['search', '--local', '-n', '20', '--db', db, '--since', '20000d'];
      const first = await run(args, { stderrTTY: true });
      expect(ndjsonIds(first.stdout)).toEqual(truth.slice(0, 20));
      vi.setSystemTime(new Date('2030-01-01T01:00:00Z'));
      const second = await run([...args, '--cursor', /--cursor (L1\.\S+)/.exec(first.stderr)![1]!], { stderrTTY: true });
      expect(second.stderr).not.toMatch(/belongs to a local query/);
      expect(ndjsonIds(second.stdout)).toEqual(truth.slice(20, 40));
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a cursor of the online service, or of another selection (exit 2, one line)', async () => {
    const { db } = await filledCopy(30);
    const online = await run(['search', '--local', '--db', db, '--cursor', 'eyJ2IjoxfQ']);
    expect(online.code).toBe(2);
    expect(online.stderr).toMatch(/^tenders: --cursor: this is not a cursor of a local query.*\n$/);
    const first = await run(['search', '--local', '-n', '5', '--db', db], { stderrTTY: true });
    const cursor = /--cursor (L1\.\S+)/.exec(first.stderr)![1]!;
    const other = await run(['search', '--local', '--sort', 'deadline', '--db', db, '--cursor', cursor]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/^tenders: --cursor belongs to a local query with other filters/);
  });

  it('selects with full-text words, "phrases", prefix*, OR and NOT', async () => {
    const db = await craftedCopy();
    const ids = async (...words: string[]) => {
      const r = await run(['search', '--local', '--all', '--db', db, '--sort', 'publicationDate', '--order', 'asc', ...words]);
      expect(r.code, r.stderr).toBe(0);
      return ndjsonIds(r.stdout);
    };
    expect(await ids('hospital', 'cleaning')).toEqual(['W-1', 'W-2']);
    expect(await ids('"hospital cleaning"')).toEqual(['W-1']);
    expect(await ids('recycl*')).toEqual(['W-6', 'W-5']);
    expect(await ids('catering OR school')).toEqual(['W-3', 'W-4']);
    expect(await ids('hospital NOT cleaning')).toEqual(['W-4']);
    // The buyer's name is searched too.
    expect(await ids('dublin')).toEqual(['W-5']);
  });

  it('selects by date and value ranges, country, status and sync', async () => {
    const db = await craftedCopy();
    const ids = async (...flags: string[]) => ndjsonIds((await run(['search', '--local', '--all', '--db', db, '--sort', 'publicationDate', '--order', 'asc', ...flags])).stdout);
    expect(await ids('--since', '2026-03-01', '--until', '2026-03-31')).toEqual(['W-1', 'W-2']);
    expect(await ids('--deadline-after', '2026-03-01', '--deadline-before', '2026-03-31')).toEqual(['W-2']);
    expect(await ids('--min-value', '250000', '--max-value', '1.5e6')).toEqual(['W-1', 'W-2']);
    expect(await ids('-c', 'IRL', '-s', 'open')).toEqual(['W-5']);
    expect(await ids('--sync', 'crafted', '-c', 'deu')).toEqual(['W-1', 'W-4']);
  });

  it('says how old the copy is on a terminal, never into the data or a pipe', async () => {
    const db = await craftedCopy();
    const tty = await run(['search', '--local', '--db', db], { stdoutTTY: true, stderrTTY: true, columns: 100 });
    expect(tty.code, tty.stderr).toBe(0);
    expect(tty.stderr).toMatch(/Local copy, synced \d+ s ago\./);
    expect(tty.stdout).toContain('W-1');
    expect(tty.stdout).not.toContain('synced');
    const piped = await run(['search', '--local', '--db', db]);
    expect(piped.stderr).toBe('');
  });

  it('writes every format, and -o FILE appears only complete', async () => {
    const db = await craftedCopy();
    const dir = testDir();
    for (const [format, check] of [
      ['csv', (text: string) => expect(text.split('\n')[0]).toContain('id')],
      ['ndjson', (text: string) => expect(ndjsonIds(text)).toHaveLength(6)],
      ['json', (text: string) => expect((JSON.parse(text) as unknown[]).length).toBe(6)],
      ['table', (text: string) => expect(text).toContain('W-6')],
    ] as const) {
      const file = join(dir, `out.${format}`);
      const r = await run(['export', '--local', '--db', db, '-f', format, '-o', file]);
      expect(r.code, r.stderr).toBe(0);
      check(readFileSync(file, 'utf8'));
    }
    expect(readdirSync(dir).filter((name) => name.includes('.partial') || name.includes('.lock'))).toEqual([]);
  });

  it('writes a receipt that names the copy rather than a service', async () => {
    const db = await craftedCopy();
    const receipt = join(testDir(), 'r.json');
    const r = await run(['export', '--local', '--db', db, '-f', 'ndjson', '-o', join(testDir(), 'x.ndjson'), '--receipt', receipt]);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(readFileSync(receipt, 'utf8')) as Record<string, any>;
    expect(json).toMatchObject({ command: 'export', rowsWritten: 6, complete: true, requests: null, output: { committed: true } });
    expect(json.query.baseUrl).toMatch(/^file:\/\/.*crafted\.db$/);
  });

  it('before any sync: exit 1 saying to run tenders sync first, and creates nothing', async () => {
    const db = join(testDir(), 'none', 'tenders.db');
    const r = await run(['search', '--local', '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: .*run tenders sync first.*\n$/);
    expect(existsSync(join(testDir(), 'none'))).toBe(false);
    const out = join(testDir(), 'out.csv');
    expect((await run(['export', '--local', '--db', db, '-o', out])).code).toBe(1);
    expect(existsSync(out)).toBe(false);
  });

  it('finds the copy through TENDERS_DB and XDG_DATA_HOME', async () => {
    const db = await craftedCopy();
    expect(ndjsonIds((await run(['search', '--local', '-n', '2'], { env: { TENDERS_DB: db } })).stdout)).toEqual(['W-4', 'W-2']);
    const xdg = join(testDir(), 'xdg');
    await syncInto(join(xdg, 'tenders', 'tenders.db'), 'x', crafted.slice(0, 1));
    expect(ndjsonIds((await run(['search', '--local'], { env: { XDG_DATA_HOME: xdg } })).stdout)).toEqual(['W-1']);
  });

  it('bad input is one tenders: line and exit 2', async () => {
    const db = await craftedCopy();
    const cases: [string[], RegExp][] = [
      [['search', '--local', '"unbalanced'], /^tenders: .*full-text/i],
      [['search', '--local', '--since', 'yesterday'], /^tenders: --since takes/],
      [['search', '--local', '--min-value', '1,000'], /^tenders: --min-value takes/],
      [['search', '--local', '--sync', 'nope'], /^tenders: no sync named 'nope' in .*: the syncs are crafted\n$/],
      [['search', '--local', '--filter', 'a=1'], /^tenders: --filter sends a field to the service/],
      [['export', '--local', '--parallel', '2'], /^tenders: --parallel is for queries of the service/],
      [['export', '--local', '-o', join(testDir(), 'a.csv'), '--resume'], /^tenders: --resume is for queries of the service/],
      [['search', '--local', '--dry-run'], /^tenders: --dry-run is for queries of the service/],
      [['search', 'hospital'], /^tenders: WORDS \('hospital'\) search the local copy.*add --local/],
    ];
    for (const [argv, message] of cases) {
      const r = await run([...argv, '--db', db], { env: { TENDERS_BASE_URL: 'http://service.test' } });
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toMatch(message);
      expect(r.stderr.trim().split('\n'), argv.join(' ')).toHaveLength(1);
    }
  });

  it('ignores the connection flags: --base-url, --rate, --timeout change nothing', async () => {
    const db = await craftedCopy();
    const r = await run(['search', '--local', '--db', db, '--base-url', 'http://nowhere.invalid', '--rate', '1', '--timeout', '5', '-n', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(ndjsonIds(r.stdout)).toEqual(['W-4']);
  });
});

describe('count --local', () => {
  it('counts exactly, per value of any dot path, and equals counting the export', async () => {
    const { db, docs } = await filledCopy(400);
    const total = await run(['count', '--local', '--db', db]);
    expect(total).toMatchObject({ code: 0, stdout: '400\n' });
    expect((await run(['count', '--local', '--db', db, '-f', 'json'])).stdout).toBe('{"count":400,"capped":false}\n');
    const exported = (await run(['export', '--local', '--db', db, '-f', 'ndjson'])).stdout;
    const byBuyer = new Map<string, number>();
    for (const line of exported.trim().split('\n')) {
      const name = (JSON.parse(line) as { buyer: { name: string } }).buyer.name;
      byBuyer.set(name, (byBuyer.get(name) ?? 0) + 1);
    }
    const counted = await run(['count', '--local', '--by', 'buyer.name', '--db', db, '-f', 'ndjson']);
    expect(counted.code, counted.stderr).toBe(0);
    const rows = counted.stdout.trim().split('\n').map((line) => JSON.parse(line) as { buyer: { name: string }; count: number; capped: boolean });
    expect(new Map(rows.map((row) => [row.buyer.name, row.count]))).toEqual(byBuyer);
    expect(rows.every((row) => row.capped === false)).toBe(true);
    // Most frequent first.
    expect(rows.map((row) => row.count)).toEqual([...rows.map((row) => row.count)].sort((a, b) => b - a));
    expect(docs).toHaveLength(400);
  });

  it('renders every count format: a plain table into a pipe, CSV with the dot path as header, JSON with the sum', async () => {
    const db = await craftedCopy();
    const text = await run(['count', '--local', '--by', 'buyer.country', '--db', db]);
    expect(text.stdout).toBe(['buyer.country  count', 'DEU                2', 'IRL                2', 'AUT                1', 'FRA                1', 'total              6', ''].join('\n'));
    const csv = await run(['count', '--local', '--by', 'buyer.country', '--db', db, '-f', 'csv']);
    expect(csv.stdout.split('\n').slice(0, 2)).toEqual(['buyer.country,count,capped', 'DEU,2,false']);
    const json = JSON.parse((await run(['count', '--local', '--by', 'status', '--db', db, '-f', 'json'])).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ by: 'status', count: 6, capped: false, partitions: [{ status: 'open', count: 4, capped: false }, {}, {}] });
    // A field some tenders lack: counted as absent, shown as (none).
    const values = await run(['count', '--local', '--by', 'estimatedValue.amountEur', '--db', db]);
    expect(values.stdout).toContain('(none)');
  });

  it('takes the same selection as search --local', async () => {
    const db = await craftedCopy();
    expect((await run(['count', '--local', 'hospital', '--db', db])).stdout).toBe('3\n');
    expect((await run(['count', '--local', '-c', 'IRL', '--since', '2026-01-01', '--db', db])).stdout).toBe('1\n');
  });

  it('bad input is exit 2 with the rule; no copy is exit 1', async () => {
    const db = await craftedCopy();
    const unknown = await run(['count', '--local', '--by', 'nosuch.field', '--db', db]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^tenders: no stored tender has a field 'nosuch.field'/);
    expect((await run(['count', '--local', '--parallel', '2', '--by', 'status', '--db', db])).code).toBe(2);
    expect((await run(['count', '--local', '-f', 'csv', '--db', db])).stderr).toMatch(/add --by FIELD/);
    const online = await run(['count', '--by', 'buyer.name', '-c', 'DEU'], { env: { TENDERS_BASE_URL: 'http://service.test' } });
    expect(online.code).toBe(2);
    expect(online.stderr).toMatch(/add --local to count any field/);
    expect((await run(['count', '--local', '--db', join(testDir(), 'missing.db')])).code).toBe(1);
  });
});

describe('changes', () => {
  async function mutated(): Promise<string> {
    const db = await craftedCopy();
    const next = crafted
      .filter((t) => t.id !== 'W-3')
      .map((t) => (t.id === 'W-2' ? { ...t, deadline: '2026-03-27T12:00:00Z' } : t));
    await syncInto(db, 'crafted', [...next, { ...crafted[0]!, id: 'W-7', title: 'New hospital wing' }]);
    return db;
  }

  it('refuses --columns that name no field of a change, before reading the copy', async () => {
    const db = await mutated();
    expect(await run(['changes', '--db', db, '--columns', 'id,nope'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: "tenders: --columns nope: a change has no field 'nope' (it has at, sync, id, kind, field, old, new)\n",
    });
    expect((await run(['changes', '--db', db, '--columns', 'id,kidn'])).stderr).toMatch(/did you mean kind\?\n$/);
    const ok = await run(['changes', '--db', db, '--columns', 'id,kind,new', '-f', 'csv']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.split('\n')[0]).toBe('id,kind,new');
  });

  it('offers only the formats that write any record, and atom (its feed): not those made for tenders (its help, its refusal)', async () => {
    const refused = await run(['changes', '-f', 'ics']);
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toBe("tenders: --format takes one of table, csv, ndjson, json, tsv, atom, not 'ics' (see 'tenders changes --help')\n");
  });

  it('a table shows every column of a change whatever the first changes hold: only new ones first, a value that is an object', async () => {
    const db = await craftedCopy();
    await syncInto(db, 'crafted', [...crafted, { ...crafted[0]!, id: 'W-7', title: 'New hospital wing' }]);
    const tty = { stdoutTTY: true, stderrTTY: true, columns: 200, env: { NO_COLOR: '1' } };
    const onlyNew = await run(['changes', '--db', db], tty);
    expect(onlyNew.code, onlyNew.stderr).toBe(0);
    expect(onlyNew.stdout.split('\n')[0]!.split(/\s+/)).toEqual(['at', '(UTC)', 'sync', 'id', 'kind', 'field']);
    const valued = crafted.map((t) => (t.id === 'W-4' ? { ...t, estimatedValue: { amountEur: 5 } } : t));
    await syncInto(db, 'crafted', [...valued, { ...crafted[0]!, id: 'W-7', title: 'New hospital wing' }]);
    const r = await run(['changes', '--db', db, '--id', 'W-4'], tty);
    expect(r.stdout.split('\n')[0]!.split(/\s+/)).toEqual(['at', '(UTC)', 'sync', 'id', 'kind', 'field']);
    expect(r.stdout).toMatch(/changed\s+estimatedValue\n {2}\(none\) → \{"amountEur":5\}\n/);
    // Into a pipe, the table is as it was: old and new are columns.
    const piped = await run(['changes', '--db', db, '--id', 'W-4', '-f', 'table']);
    expect(piped.stdout.split('\n')[0]!.split(/\s+/)).toEqual(['at', 'sync', 'id', 'kind', 'field', 'old', 'new']);
    expect(piped.stdout).toMatch(/changed\s+estimatedValue\s+\{"amountEur":5\}/);
  });

  it('at 80 columns shows what changed, whole: a word diff with context under the row, old → new where nothing is shared', async () => {
    const long = 'Hospital cleaning services for the new surgical wing of the City Hospital in the northern district';
    const db = join(testDir(), 'long.db');
    const first = crafted.map((t) => (t.id === 'W-1' ? { ...t, title: long } : t));
    await syncInto(db, 'crafted', first);
    const next = first.map((t) =>
      t.id === 'W-1' ? { ...t, title: `${long} (amended 1)` } : t.id === 'W-2' ? { ...t, deadline: '2026-03-27T12:00:00Z' } : t.id === 'W-5' ? { ...t, title: 'Waste collection and glass recycling' } : t,
    );
    await syncInto(db, 'crafted', next);
    const tty = { stdoutTTY: true, stderrTTY: true, columns: 80, env: { NO_COLOR: '1' } };
    const r = await run(['changes', '--db', db, '--since', '1d'], tty);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^at \(UTC\)\s+sync\s+id\s+kind\s+field$/);
    expect(lines[1]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?  crafted  W-1  changed  title$/);
    expect(lines[2]).toBe('  … the northern district {+(amended 1)+}');
    expect(lines[4]).toBe('  2026-03-20T12:00:00Z → 2026-03-27T12:00:00Z');
    expect(lines[6]).toBe('  Waste collection and {+glass+} recycling');
    expect(r.stderr).not.toMatch(/hidden/);

    // Every column named is shown: old and new under the row, whatever the width.
    const named = await run(['changes', '--db', db, '--since', '1d', '--columns', 'at,id,field,old,new'], tty);
    expect(named.stdout.split('\n')[0]).toMatch(/^at \(UTC\)\s+id\s+field$/);
    expect(named.stdout).toContain('\n  … the northern district {+(amended 1)+}\n');
    expect(named.stderr).not.toMatch(/hidden/);
    const onlyNew = await run(['changes', '--db', db, '--since', '1d', '--columns', 'id,new'], tty);
    expect(onlyNew.stdout.split('\n').slice(0, 4)).toEqual(['id', 'W-1', '  new: Hospital cleaning services for the new surgical wing of the City Hospital', '  in the northern district (amended 1)']);
    // What cannot be shown at this width is refused with the width it needs, never hidden.
    const narrow = await run(['changes', '--db', db, '--columns', 'at,sync,id,kind,field'], { ...tty, columns: 30 });
    expect(narrow.code).toBe(1);
    expect(narrow.stderr.replace(/\n/g, ' ')).toMatch(/^tenders: --columns at,sync,id,kind,field need \d+ columns at their narrowest and the terminal has 30: name fewer columns/);
  });

  it('shows new, changed (field, old → new) and gone once each, oldest first, as NDJSON into a pipe', async () => {
    const db = await mutated();
    const r = await run(['changes', '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows.map(({ at: _at, ...rest }) => rest)).toEqual([
      { sync: 'crafted', id: 'W-2', kind: 'changed', field: 'deadline', old: '2026-03-20T12:00:00Z', new: '2026-03-27T12:00:00Z' },
      { sync: 'crafted', id: 'W-3', kind: 'gone', field: null },
      { sync: 'crafted', id: 'W-7', kind: 'new', field: null },
    ]);
    expect(rows.every((row) => typeof row.at === 'string' && !Number.isNaN(Date.parse(row.at as string)))).toBe(true);
    // The sync's NAME, a tender's id, --since: the same history, narrowed.
    expect((await run(['changes', 'crafted', '--db', db])).stdout).toBe(r.stdout);
    expect((await run(['changes', '--id', 'W-2', '--db', db])).stdout.trim().split('\n')).toHaveLength(1);
    expect((await run(['changes', '--since', '1h', '--db', db])).stdout).toBe(r.stdout);
    expect((await run(['changes', '--since', '+1h', '--db', db])).stdout).toBe('');
  });

  it('writes every record format, CSV with every column even when the first rows have no field', async () => {
    const db = await mutated();
    const csv = await run(['changes', '--db', db, '-f', 'csv']);
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toBe('at,sync,id,kind,field,old,new');
    expect(lines[1]).toMatch(/^[^,]+,crafted,W-2,changed,deadline,2026-03-20T12:00:00Z,2026-03-27T12:00:00Z$/);
    expect(JSON.parse((await run(['changes', '--db', db, '-f', 'json'])).stdout)).toHaveLength(3);
    const file = join(testDir(), 'changes.tsv.csv');
    expect((await run(['changes', '--db', db, '-o', file])).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(csv.stdout);
  });

  it('fits a table in 80 columns without cutting the kind or the field', async () => {
    const db = await mutated();
    const r = await run(['changes', '--db', db], { stdoutTTY: true, stderrTTY: true, columns: 80 });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line.replace(/\x1b\[[0-9;]*m/g, '').length).toBeLessThanOrEqual(80);
    expect(r.stdout).toContain('changed');
    expect(r.stdout).toContain('deadline');
    expect(r.stdout).toContain('gone');
  });

  it('an unknown sync is exit 2 naming the syncs; no copy is exit 1; a bad --since is exit 2', async () => {
    const db = await mutated();
    const unknown = await run(['changes', 'nope', '--db', db]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^tenders: no sync named 'nope' in .*: the syncs are crafted\n$/);
    expect((await run(['changes', '--db', join(testDir(), 'missing.db')])).code).toBe(1);
    const since = await run(['changes', '--since', 'last week', '--db', db]);
    expect(since.code).toBe(2);
    expect(since.stderr).toMatch(/^tenders: --since takes/);
  });
});
