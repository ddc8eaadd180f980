import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import { InterruptedError, RunError } from '../../src/errors.js';
import { type FakeClient, pagedTenders, type Responder } from '../support/fake-client.js';
import type { MemoryIOOptions } from '../support/io.js';
import { runInProcess } from '../support/run.js';
import { TenderSet } from '../support/tender-set.js';

let dir: string;
/** One directory for the file's tests, removed when they are done. */
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tenders-watch-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));
beforeEach(async () => {
  dir = await mkdtemp(join(root, 'w-'));
});

const watch = (args: string[], respond: Responder | FakeClient, opts: MemoryIOOptions & { signal?: AbortSignal } = {}) =>
  runInProcess(['watch', ...args], respond, { ...opts, env: { TENDERS_STATE_DIR: dir, ...opts.env } });

interface Row {
  change: string;
  changedFields: string[];
  tender: { id: string } & Record<string, unknown>;
}
const rows = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Row);
const summary = (row: Row) => `${row.change} ${row.tender.id}${row.changedFields.length ? ` ${row.changedFields.join(';')}` : ''}`;
const stateText = () => readFile(join(dir, 'w.watch'), 'utf8');

/** A baseline of `n` tenders, then the changes of `change`; the run's result. */
async function afterChanges(n: number, change: (set: TenderSet) => void, args: string[] = ['-f', 'ndjson']) {
  const set = new TenderSet(n);
  expect((await watch(['w', '-s', 'open'], set.respond)).code).toBe(0);
  change(set);
  return { set, r: await watch(['w', ...args], set.respond) };
}

describe('watch: the first run', () => {
  it('records a baseline silently: nothing on stdout or stderr, exit 0, the query saved', async () => {
    const r = await watch(['w', '-c', 'deu,fra', '-s', 'open'], new TenderSet(250).respond);
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const body = { buyerCountries: ['DEU', 'FRA'], statuses: ['open'], limit: 100 };
    expect(r.client.requests.map((q) => q.body)).toEqual([body, { ...body, cursor: 'c100' }, { ...body, cursor: 'c200' }]);
    const state = (await stateText()).split('\n');
    expect(JSON.parse(state[0]!)).toMatchObject({ tendersWatch: 1, name: 'w', query: { org: null, body: { buyerCountries: ['DEU', 'FRA'], statuses: ['open'] } } });
    expect(state).toHaveLength(253); // header, 250 tenders, summary, and the final newline
    expect(JSON.parse(state[251]!).end).toMatchObject({ tenders: 250, newestPublicationDate: '2026-09-08' });
  });

  it('says so on a terminal, or with --verbose', async () => {
    const r = await watch(['w'], new TenderSet(1234).respond, { stderrTTY: true, columns: 80 });
    expect(r.stderr).toContain('watch w: baseline of 1,234 tenders recorded; the next run shows what changed\n');
    const v = await watch(['v', '-v'], new TenderSet(3).respond);
    expect(v.stderr).toContain('watch v: baseline of 3 tenders recorded');
    expect(v.stderr).toMatch(/\* watch v: 3 tenders in 1 page, 0 duplicates dropped, [\d.]+ s\n$/);
  });

  it('--initial all prints every tender as new', async () => {
    const r = await watch(['w', '--initial', 'all', '-f', 'ndjson'], new TenderSet(3).respond);
    expect(rows(r.stdout).map(summary)).toEqual(['new T-3', 'new T-2', 'new T-1']);
    expect(rows(r.stdout)[0]).toEqual({ change: 'new', changedFields: [], tender: new TenderSet(3).tenders.get('T-3') });
  });
});

describe('watch: later runs', () => {
  it('print nothing when nothing changed', async () => {
    const { r } = await afterChanges(150, () => undefined);
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('report new, changed (with the dot paths that differ) and gone tenders exactly once', async () => {
    const { set, r } = await afterChanges(150, (set) => {
      set.insert(2);
      set.update('T-10', (t) => {
        t.deadline = '2027-01-01T12:00:00Z';
        t.estimatedValue!.amount = 5;
      });
      set.update('T-20', (t) => (t.estimatedValue = { amount: 1, currency: 'EUR' })); // was null
      set.update('T-30', (t) => (t.title = 'renamed'));
      set.remove('T-40');
      set.update('T-41', (t) => (t.status = 'closed'));
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(rows(r.stdout).map(summary)).toEqual([
      'new T-152',
      'new T-151',
      'changed T-41 status',
      'changed T-30 title',
      'changed T-20 estimatedValue.amount;estimatedValue.currency',
      'changed T-10 deadline;estimatedValue.amount',
      'gone T-40',
    ]);
    const [, , , , , changed, gone] = rows(r.stdout);
    expect(changed!.tender).toEqual(set.tenders.get('T-10'));
    expect(gone!.tender).toEqual({ id: 'T-40', title: 'Tender 40', deadline: null });
    // Reported once: the next run has nothing to say.
    expect((await watch(['w'], set.respond)).stdout).toBe('');
    // The state carried unchanged lines over and rewrote the rest: it knows what a new baseline knows.
    await watch(['fresh', '-s', 'open'], set.respond);
    set.update('T-10', (t) => (t.title = 'again'));
    set.update('T-151', (t) => (t.title = 'again'));
    set.remove('T-3');
    for (const name of ['w', 'fresh']) {
      expect(rows((await watch([name], set.respond)).stdout).map(summary)).toEqual(['changed T-151 title', 'changed T-10 title', 'gone T-3']);
    }
  });

  it('CSV rows lead with change and changedFields, the columns of the first page behind', async () => {
    const { r } = await afterChanges(5, (set) => {
      set.update('T-2', (t) => (t.deadline = null));
      set.remove('T-5');
    }, ['-f', 'csv']);
    expect(r.stdout).toBe(
      'change,changedFields,id,title,status,publicationDate,deadline,buyer.id,buyer.country,estimatedValue.amount,estimatedValue.currency\n' +
        'changed,deadline,T-2,Tender 2,open,2026-01-03,,ORG-2,DEU,2000,EUR\n' +
        'gone,,T-5,Tender 5,,,,,,,\n',
    );
  });

  it('a gone row carries the whole title or none, never an abbreviation (CSV and NDJSON)', async () => {
    const long = `Waste collection — Cork — framework agreement for the supply ${'of services '.repeat(100)}`;
    const medium = `Road works ${'and repairs '.repeat(30)}`; // past the 200 characters an older state kept
    const rename = (set: TenderSet) => {
      set.update('T-1', (t) => (t.title = long));
      set.update('T-2', (t) => (t.title = medium));
    };
    const gone = (set: TenderSet) => {
      set.remove('T-1');
      set.remove('T-2');
    };
    const set = new TenderSet(3);
    rename(set);
    expect((await watch(['w'], set.respond)).code).toBe(0);
    gone(set);
    const csv = await watch(['w', '-f', 'csv', '--columns', 'id,title'], set.respond);
    expect(csv.stdout).toBe(`change,changedFields,id,title\ngone,,T-2,${medium}\ngone,,T-1,\n`);
    dir = await mkdtemp(join(root, 'w-'));
    const again = new TenderSet(3);
    rename(again);
    await watch(['w'], again.respond);
    gone(again);
    const nd = rows((await watch(['w', '-f', 'ndjson'], again.respond)).stdout);
    expect(nd.map((row) => row.tender)).toEqual([
      { id: 'T-2', title: medium, deadline: '2026-02-02T12:00:00Z' },
      { id: 'T-1', deadline: '2026-02-01T12:00:00Z' },
    ]);
  });

  it('a table at 120 columns never cuts change or changedFields before the title', async () => {
    const set = new TenderSet(5);
    expect((await watch(['w'], set.respond)).code).toBe(0);
    set.update('T-2', (t) => {
      t.deadline = null;
      t.title = `${t.title} ${'renamed '.repeat(20)}`;
      (t as unknown as { estimatedValue: { amount: number } }).estimatedValue.amount = 1;
    });
    const r = await watch(['w', '-f', 'table'], set.respond, { stdoutTTY: true, columns: 120, env: { NO_COLOR: '1' } });
    const row = r.stdout.split('\n').find((line) => line.startsWith('changed'))!;
    expect(row).toContain('title;deadline;estimatedValue.amount  T-2');
    expect(row).toContain('…'); // the title gave way
    expect(Math.max(...r.stdout.split('\n').map((line) => line.length))).toBeLessThanOrEqual(120);
  });

  it('--columns picks the tender columns of CSV and projects the tender in NDJSON', async () => {
    const change = (set: TenderSet) => set.update('T-3', (t) => (t.title = 'new title'));
    const csv = await afterChanges(5, change, ['-f', 'csv', '--columns', 'id,buyer.id']);
    expect(csv.r.stdout).toBe('change,changedFields,id,buyer.id\nchanged,title,T-3,ORG-0\n');
    dir = await mkdtemp(join(root, 'w-'));
    const nd = await afterChanges(5, change, ['-f', 'ndjson', '--columns', 'id,buyer.id']);
    expect(rows(nd.r.stdout)).toEqual([{ change: 'changed', changedFields: ['title'], tender: { id: 'T-3', buyer: { id: 'ORG-0' } } }]);
  });

  it('JSON is one array of the rows; a table shows change first', async () => {
    const json = await afterChanges(5, (set) => set.insert(1), ['-f', 'json']);
    expect((JSON.parse(json.r.stdout) as Row[]).map(summary)).toEqual(['new T-6']);
    dir = await mkdtemp(join(root, 'w-'));
    const table = await afterChanges(5, (set) => set.insert(1), ['-f', 'table']);
    expect(table.r.stdout).toMatch(/^change\s+changedFields\s+id\s+published\s+deadline\s+status\s+country\s+title\nnew\s+T-6\s/);
  });

  it("a table sets its widths on a page's worth of changes, with room for every change kind", async () => {
    const { r } = await afterChanges(300, (set) => {
      set.insert(120);
      set.update('T-5', (t) => (t.status = 'paused'));
    }, ['-f', 'table', '--columns', 'id']);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(122);
    expect(lines[0]).toBe('change   changedFields  id');
    expect(lines[121]).toBe('changed  status         T-5');
  });

  it('a table on a terminal, NDJSON into a pipe, by default', async () => {
    const piped = await afterChanges(5, (set) => set.insert(1), []);
    expect(rows(piped.r.stdout).map(summary)).toEqual(['new T-6']);
    const set = new TenderSet(5);
    await watch(['t'], set.respond);
    set.insert(1);
    const r = await watch(['t'], set.respond, { stdoutTTY: true, stderrTTY: true, columns: 100, env: { NO_COLOR: '1' } });
    expect(r.stdout).toMatch(/^change +changedFields +id +/);
    expect(r.stderr).toContain('watch t: 1 new, 0 changed, 0 gone\n');
  });

  it('-o FILE holds the changes, and is empty when nothing changed', async () => {
    const out = join(dir, 'changes.ndjson');
    const { set } = await afterChanges(5, (set) => set.insert(2), ['-o', out]);
    expect(rows(await readFile(out, 'utf8')).map(summary)).toEqual(['new T-7', 'new T-6']);
    expect((await watch(['w', '-o', out], set.respond)).code).toBe(0);
    expect(await readFile(out, 'utf8')).toBe('');
  });

  it('warns of what its format lost (an OCDS status), in cron too', async () => {
    const { r } = await afterChanges(5, (set) => set.update(set.insert(1)[0]!, (t) => (t.status = 'suspended')), ['-f', 'ocds']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).releases).toHaveLength(1);
    expect(r.stderr).toBe('tenders: warning: OCDS has no tender status for suspended (1): tender.status is left out of those releases\n');
  });

  it('counts a tender repeated in one walk once, drops tenders without an id with a warning', async () => {
    const set = new TenderSet(3);
    const odd: Responder = async (request, n) => {
      const page = (await set.respond(request, n)) as { json: { tenders: unknown[] } };
      page.json.tenders.push({ title: 'no id' }, { id: 'T-1', title: 'Tender 1 again' });
      return page;
    };
    await watch(['w'], set.respond);
    const r = await watch(['w', '-v'], odd);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('tenders: warning: 1 tender without an id was left out: a watch follows tenders by their id\n');
    // The tender without an id counts as walked, as an export would write it.
    expect(r.stderr).toContain('tenders: warning: the service counted 3 tenders but the walk saw 4: the data changed while paging\n');
    expect(r.stderr).toMatch(/watch w: 4 tenders in 1 page, 1 duplicate dropped/);
  });
});

describe('watch: exact data', () => {
  it('new, changed and gone rows keep every digit, in NDJSON, JSON and CSV', async () => {
    let pages = '[{"id":12345678901234567890,"v":9007199254740993},{"id":12345678901234567891,"v":1}]';
    const service: Responder = () => ({ json: parseJson(`{"tenders":${pages},"page":{"nextCursor":null,"total":null}}`) });
    for (const name of ['nd', 'js', 'csv']) await watch([name], service);
    pages = '[{"id":12345678901234567892,"v":2},{"id":12345678901234567890,"v":9007199254740995}]';
    expect((await watch(['nd', '-f', 'ndjson'], service)).stdout).toBe(
      '{"change":"new","changedFields":[],"tender":{"id":12345678901234567892,"v":2}}\n' +
        '{"change":"changed","changedFields":["v"],"tender":{"id":12345678901234567890,"v":9007199254740995}}\n' +
        '{"change":"gone","changedFields":[],"tender":{"id":12345678901234567891}}\n',
    );
    expect((await watch(['js', '-f', 'json'], service)).stdout).toContain('"tender":{"id":12345678901234567890,"v":9007199254740995}');
    expect((await watch(['csv', '-f', 'csv'], service)).stdout).toBe(
      'change,changedFields,id,v\nnew,,12345678901234567892,2\nchanged,v,12345678901234567890,9007199254740995\ngone,,12345678901234567891,\n',
    );
  });
});

describe('watch: nothing lost', () => {
  const failing = (set: TenderSet, failAt: number): Responder => (request, n) => {
    if (n === failAt) throw new RunError('the service answered 503 to POST /api/v1/tenders/search: still failing');
    return set.respond(request, n);
  };

  it('a run that fails leaves the state as it was; the next run reports the same changes once', async () => {
    const set = new TenderSet(250);
    await watch(['w'], set.respond);
    const before = await stateText();
    set.insert(3);
    set.update('T-1', (t) => (t.title = 'changed'));
    set.remove('T-100');
    const failed = await watch(['w', '-f', 'ndjson'], failing(set, 3));
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe('tenders: the service answered 503 to POST /api/v1/tenders/search: still failing\n');
    expect(await stateText()).toBe(before);
    expect(await readdir(dir)).toEqual(['w.watch']); // no temporary state, no lock left
    const again = await watch(['w', '-f', 'ndjson'], set.respond);
    expect(rows(again.stdout).map(summary)).toEqual(['new T-253', 'new T-252', 'new T-251', 'changed T-1 title', 'gone T-100']);
    expect((await watch(['w'], set.respond)).stdout).toBe('');
  });

  it('an interrupted run leaves it too, and exits 130', async () => {
    const set = new TenderSet(250);
    await watch(['w'], set.respond);
    const before = await stateText();
    set.insert(1);
    const controller = new AbortController();
    const stopping: Responder = (request, n) => {
      if (n === 2) controller.abort(new InterruptedError('SIGINT'));
      return set.respond(request, n);
    };
    const r = await watch(['w'], stopping, { signal: controller.signal });
    expect(r.code).toBe(130);
    expect(await stateText()).toBe(before);
    expect(rows((await watch(['w'], set.respond)).stdout).map(summary)).toEqual(['new T-251']);
  });

  it('-o FILE is left as it was by a failed run', async () => {
    const set = new TenderSet(250);
    const out = join(dir, 'changes.csv');
    await writeFile(out, 'yesterday\n');
    await watch(['w'], set.respond);
    set.insert(1);
    expect((await watch(['w', '-o', out], failing(set, 2))).code).toBe(1);
    expect(await readFile(out, 'utf8')).toBe('yesterday\n');
  });
});

describe('watch --new-only', () => {
  it('in the default order, pages only as far as the new tenders go and reports only them', async () => {
    const set = new TenderSet(1000);
    await watch(['w', '-n', '20'], set.respond);
    set.insert(30);
    set.update('T-999', (t) => (t.title = 'changed'));
    set.remove('T-998');
    const r = await watch(['w', '-n', '20', '--new-only', '-f', 'ndjson', '-v'], set.respond);
    expect(rows(r.stdout).map(summary)).toEqual(Array.from({ length: 30 }, (_, i) => `new T-${1030 - i}`));
    // 30 new on pages 1–2; page 3 (20 older tenders) ends it: no prefetch beyond.
    expect(r.client.requests).toHaveLength(3);
    expect(r.stderr).toMatch(/watch w: 60 tenders in 3 pages \(stopped early\)/);
    // What --new-only skipped, the full run still reports.
    const full = await watch(['w', '-n', '20', '-f', 'ndjson'], set.respond);
    expect(rows(full.stdout).map(summary)).toEqual(['changed T-999 title', 'gone T-998']);
  });

  it('costs one page when nothing is new', async () => {
    const set = new TenderSet(1000);
    await watch(['w'], set.respond);
    const r = await watch(['w', '--new-only'], set.respond);
    expect(r.stdout).toBe('');
    expect(r.client.requests).toHaveLength(1);
  });

  it('walks every page in another order, and says so with --verbose', async () => {
    const set = new TenderSet(300);
    await watch(['w', '--sort', 'deadline'], set.respond);
    set.insert(1);
    const r = await watch(['w', '--new-only', '-v'], set.respond);
    expect(r.client.requests.at(-1)!.body).toMatchObject({ sortBy: 'deadline', cursor: 'c200' });
    expect(r.stderr).toContain('--new-only walks every page here: it stops early only in the default order');
    expect(rows(r.stdout).map(summary)).toEqual(['new T-301']);
  });
});

describe('watch --receipt and --parallel', () => {
  it('a receipt records the query, the walk, the changes by kind, the output and the state', async () => {
    const set = new TenderSet(150);
    await watch(['w', '-c', 'DEU,FRA'], set.respond);
    set.insert(2);
    set.remove('T-7');
    const file = join(dir, 'receipt.json');
    const r = await watch(['w', '-f', 'ndjson', '--receipt', file], set.respond);
    expect(r.code).toBe(0);
    const receipt = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    expect(receipt).toMatchObject({
      command: 'watch',
      query: { path: '/api/v1/tenders/search', body: { buyerCountries: ['DEU', 'FRA'], limit: 100 } },
      pages: 2,
      rowsWritten: 3,
      complete: true,
      error: null,
      output: { stdout: true, committed: true, bytes: Buffer.byteLength(r.stdout), sha256: createHash('sha256').update(r.stdout).digest('hex') },
      watch: { name: 'w', state: join(dir, 'w.watch'), mode: 'full', tendersSeen: 151, changes: { new: 2, changed: 0, gone: 1 }, stateCommitted: true },
    });
  });

  it("a receipt naming the watch's own -o FILE is a usage error before any request", async () => {
    const file = join(dir, 'changes.csv');
    const r = await watch(['w', '-c', 'DEU', '-o', file, '--receipt', file], new TenderSet(10).respond);
    expect(r.code).toBe(2);
    expect(r.client.requests).toHaveLength(0);
  });

  it('a failed run says so in its receipt: not complete, the state not moved', async () => {
    const set = new TenderSet(150);
    await watch(['w'], set.respond);
    const file = join(dir, 'receipt.json');
    const failing: Responder = (request, n) => (n === 2 ? { status: 200, json: { nothing: true } } : set.respond(request, n));
    expect((await watch(['w', '--receipt', file], failing)).code).toBe(1);
    const receipt = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    expect(receipt).toMatchObject({ complete: false, error: { exitCode: 1 }, watch: { stateCommitted: false } });
  });

  it('--parallel walks one chain per country, merged; the changes are the same', async () => {
    const set = new TenderSet(300);
    await watch(['w', '-c', 'DEU,FRA', '--parallel', '2'], set.respond);
    set.insert(3);
    set.update('T-9', (t) => (t.title = 'changed'));
    const r = await watch(['w', '--parallel', '2', '-f', 'ndjson'], set.respond);
    expect(rows(r.stdout).map(summary)).toEqual(['new T-303', 'new T-302', 'new T-301', 'changed T-9 title']);
    expect(new Set(r.client.requests.map((q) => JSON.stringify(q.body.buyerCountries)))).toEqual(new Set(['["DEU"]', '["FRA"]']));
  });

  it('--new-only on several chains reads every page, and says so with --verbose', async () => {
    const set = new TenderSet(300);
    await watch(['w', '-c', 'DEU,FRA'], set.respond);
    set.insert(1);
    const r = await watch(['w', '--parallel', '2', '--new-only', '-v', '-f', 'ndjson'], set.respond);
    expect(rows(r.stdout).map(summary)).toEqual(['new T-301']);
    expect(r.stderr).toContain('--new-only reads every page of a --parallel walk');
  });
});

describe('watch: saved queries', () => {
  it('later runs reuse the saved filters, or repeat them', async () => {
    const set = new TenderSet(3);
    await watch(['w', '-c', 'DEU,FRA', '--filter', 'minValue=5'], set.respond);
    const reuse = await watch(['w'], set.respond);
    expect(reuse.client.requests[0]!.body).toEqual({ buyerCountries: ['DEU', 'FRA'], minValue: 5, limit: 100 });
    const repeat = await watch(['w', '--filter', 'minValue=5', '-c', 'deu,fra', '-n', '50'], set.respond);
    expect(repeat.code).toBe(0);
    expect(repeat.client.requests[0]!.body).toEqual({ buyerCountries: ['DEU', 'FRA'], minValue: 5, limit: 50 });
  });

  it('different filters are a usage error before any request, unless --reset', async () => {
    const set = new TenderSet(3);
    await watch(['w', '-c', 'DEU', '-s', 'open'], set.respond);
    const r = await watch(['w', '-c', 'FRA'], set.respond);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "tenders: watch w follows '-c DEU -s open', not '-c FRA': leave the filters out to use the saved ones, or add --reset to follow the new ones from a new baseline\n",
    );
    expect(r.client.requests).toHaveLength(0);
    set.insert(1);
    const reset = await watch(['w', '-c', 'FRA', '--reset'], set.respond);
    expect(reset).toMatchObject({ code: 0, stdout: '' }); // a new baseline
    expect(reset.client.requests[0]!.body).toEqual({ buyerCountries: ['FRA'], limit: 100 });
    expect((await watch(['w'], set.respond)).client.requests[0]!.body).toEqual({ buyerCountries: ['FRA'], limit: 100 });
  });

  it('--reset without filters keeps the query and records a new baseline', async () => {
    const set = new TenderSet(3);
    await watch(['w', '-s', 'open'], set.respond);
    set.insert(1);
    const r = await watch(['w', '--reset'], set.respond);
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.client.requests[0]!.body).toEqual({ statuses: ['open'], limit: 100 });
  });

  it('is bound to the service it was made against: another base URL is a usage error naming both, unless --reset', async () => {
    const set = new TenderSet(3);
    await watch(['w', '-s', 'open'], set.respond);
    const first = JSON.parse((await stateText()).split('\n')[0]!) as Record<string, unknown>;
    expect(first).toMatchObject({ service: 'http://service.test' });
    expect(first).not.toHaveProperty('baseUrl');
    expect((await watch(['w', '--base-url', 'http://service.test/'], set.respond)).code).toBe(0); // the same service
    const other = await watch(['w', '--base-url', 'http://other:8790'], set.respond);
    expect(other).toMatchObject({ code: 2, stdout: '' });
    expect(other.stderr).toBe(
      'tenders: watch w follows the service at http://service.test, not http://other:8790: leave --base-url and TENDERS_BASE_URL out to use that service, or add --reset to follow this one from a new baseline\n',
    );
    expect(other.client.requests).toHaveLength(0);
    const dry = await watch(['w', '--dry-run'], set.respond, { env: { TENDERS_BASE_URL: 'http://other:8790' } });
    expect(dry.code).toBe(2);
    const reset = await watch(['w', '--reset', '--base-url', 'http://other:8790'], set.respond);
    expect(reset).toMatchObject({ code: 0, stdout: '' });
    expect(JSON.parse((await stateText()).split('\n')[0]!)).toMatchObject({ service: 'http://other:8790' });
  });

  it('a state written before the service was kept adopts the current one', async () => {
    const set = new TenderSet(3);
    await watch(['w'], set.respond);
    const [head, ...rest] = (await stateText()).split('\n');
    const { service: _dropped, ...old } = JSON.parse(head!) as Record<string, unknown>;
    await writeFile(join(dir, 'w.watch'), [JSON.stringify(old), ...rest].join('\n'));
    expect((await watch(['w', '--base-url', 'http://other:8790'], set.respond)).code).toBe(0);
    expect(JSON.parse((await stateText()).split('\n')[0]!)).toMatchObject({ service: 'http://other:8790' });
    expect((await watch(['w'], set.respond)).code).toBe(2);
  });

  it('reads a state whose header names its service `baseUrl` (as tenders wrote it before 2026-11-28), and writes `service` from then on', async () => {
    const set = new TenderSet(3);
    await watch(['w'], set.respond);
    const [head, ...rest] = (await stateText()).split('\n');
    const { service, ...header } = JSON.parse(head!) as Record<string, unknown>;
    expect(service).toBe('http://service.test');
    await writeFile(join(dir, 'w.watch'), [JSON.stringify({ ...header, baseUrl: 'http://service.test' }), ...rest].join('\n'));
    // Still bound to the service the old header names.
    const other = await watch(['w', '--base-url', 'http://other:8790'], set.respond);
    expect(other).toMatchObject({ code: 2, stdout: '' });
    expect(other.stderr).toContain('watch w follows the service at http://service.test, not http://other:8790');
    set.update('T-1', (t) => (t.title = 'new title'));
    const r = await watch(['w', '-f', 'ndjson'], set.respond);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { change: string }).change)).toEqual(['changed']);
    const written = JSON.parse((await stateText()).split('\n')[0]!) as Record<string, unknown>;
    expect(written).toEqual({ ...header, service: 'http://service.test' });
  });

  it("--org watches an organisation's tenders", async () => {
    const set = new TenderSet(3);
    const r = await watch(['w', '--org', 'ORG/1', '-s', 'open'], set.respond);
    expect(r.client.requests[0]).toEqual({ path: '/api/v1/organisations/ORG%2F1/tenders/search', body: { statuses: ['open'], limit: 100 } });
    expect((await watch(['w'], set.respond)).client.requests[0]!.path).toBe('/api/v1/organisations/ORG%2F1/tenders/search');
    expect((await watch(['w', '-s', 'open'], set.respond)).code).toBe(2); // the search is another query
  });
});

describe('watch: names, --list, --forget', () => {
  it.each(['../x', '.hidden', 'a/b', 'a b', '', 'x'.repeat(101)])('refuses the name %j (exit 2, no request)', async (name) => {
    const r = await watch([name], pagedTenders(3));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tenders: a watch name is up to 100 letters, digits/);
    expect(r.client.requests).toHaveLength(0);
  });

  it('needs a NAME, and --list and --forget take no filters', async () => {
    expect((await watch([], pagedTenders(1))).stderr).toMatch(/^tenders: watch needs a NAME/);
    expect((await watch(['--list', 'w'], pagedTenders(1))).code).toBe(2);
    expect((await watch(['--list', '-c', 'DEU'], pagedTenders(1))).code).toBe(2);
    expect((await watch(['w', '--forget', '--reset'], pagedTenders(1))).code).toBe(2);
    expect((await watch(['--forget'], pagedTenders(1))).code).toBe(2);
    expect((await watch(['w', '--initial', 'some'], pagedTenders(1))).code).toBe(2);
  });

  it('--list shows each watch: name, query, last run, tenders known', async () => {
    const set = new TenderSet(12);
    await watch(['deu-open', '-c', 'DEU', '-s', 'open'], set.respond);
    await watch(['big-buyer', '--org', 'ORG-7'], set.respond);
    const csv = await watch(['--list', '-f', 'csv'], pagedTenders(0));
    expect(csv.stdout).toMatch(/^name,query,lastRun,tenders\nbig-buyer,--org ORG-7,20\d\d-[-:.\dTZ]+,12\ndeu-open,-c DEU -s open,20\d\d-[-:.\dTZ]+,8\n$/);
    const nd = rows((await watch(['--list'], pagedTenders(0))).stdout) as unknown as Record<string, unknown>[];
    expect(nd[1]).toMatchObject({ name: 'deu-open', query: '-c DEU -s open', tenders: 8, file: join(dir, 'deu-open.watch') });
    expect(csv.client.requests).toHaveLength(0);
  });

  it('--list shows sort and --filter values as flags, warns about a damaged state, and writes -o FILE', async () => {
    const set = new TenderSet(3);
    await watch(['a', '--sort', 'deadline', '--order', 'asc', '--filter', 'minValue=5', '--filter', 'q=bridge'], set.respond);
    await watch(['b'], set.respond);
    await writeFile(join(dir, 'broken.watch'), 'nonsense\n');
    const out = join(dir, 'list.csv');
    const r = await watch(['--list', '-o', out], pagedTenders(0), { stderrTTY: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`tenders: warning: the watch state ${join(dir, 'broken.watch')} is not a watch state`);
    expect(r.stderr).toContain(`2 watches in ${dir}.`);
    const csv = await readFile(out, 'utf8');
    expect(csv).toMatch(/^name,query,lastRun,tenders\na,--sort deadline --order asc --filter minValue=5 --filter q=bridge,.*,3\nb,\(every tender\),.*,3\n$/);
  });

  it('--list of no watches prints nothing (a hint on a terminal); it needs no base URL', async () => {
    const r = await watch(['--list'], pagedTenders(0), { stderrTTY: true, env: { TENDERS_BASE_URL: undefined } });
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: `No saved watches in ${dir}.\n` });
  });

  it('--forget deletes a watch; an unknown one is exit 1', async () => {
    await watch(['w'], new TenderSet(2).respond);
    expect((await watch(['w', '--forget'], pagedTenders(0))).code).toBe(0);
    expect(await readdir(dir)).toEqual([]);
    const again = await watch(['w', '--forget'], pagedTenders(0));
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`tenders: there is no watch named w in ${dir} (see tenders watch --list)\n`);
  });

  it('--forget where no watch was ever saved (no state directory) is exit 1, creating nothing', async () => {
    const none = join(dir, 'never');
    const r = await watch(['w', '--forget'], pagedTenders(0), { env: { TENDERS_STATE_DIR: none } });
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: `tenders: there is no watch named w in ${none} (see tenders watch --list)\n` });
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('watch: state location and safety', () => {
  it('lives in $XDG_STATE_HOME/tenders/watches, else ~/.local/state/tenders/watches', async () => {
    const set = new TenderSet(1);
    await watch(['x'], set.respond, { env: { TENDERS_STATE_DIR: undefined, XDG_STATE_HOME: dir } });
    expect(await readdir(join(dir, 'tenders', 'watches'))).toEqual(['x.watch']);
    await watch(['h'], set.respond, { env: { TENDERS_STATE_DIR: undefined, HOME: dir, XDG_STATE_HOME: 'relative' } });
    expect(await readdir(join(dir, '.local', 'state', 'tenders', 'watches'))).toEqual(['h.watch']);
    const none = await watch(['n'], set.respond, { env: { TENDERS_STATE_DIR: undefined } });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^tenders: no place for watch state: set TENDERS_STATE_DIR/);
  });

  it.each([
    ['garbage', 'not a state\n', 'is not a watch state'],
    ['cut short', null, 'is cut short (no summary line)'],
    ['a damaged line', 'damage', 'has a damaged line 3'],
    ['a newer format', 'newer', 'was written by a newer tenders (state format 9): upgrade tenders, or'],
  ])('a state file with %s is exit 1, naming it and --reset; --reset recovers', async (_what, damage, message) => {
    const set = new TenderSet(5);
    await watch(['w'], set.respond);
    const file = join(dir, 'w.watch');
    const text = await stateText();
    const lines = text.split('\n');
    const damaged =
      damage === null ? lines.slice(0, 4).join('\n') + '\n'
      : damage === 'damage' ? [lines[0], lines[1], 'xx\tyy', ...lines.slice(3)].join('\n')
      : damage === 'newer' ? text.replace('"tendersWatch":1', '"tendersWatch":9')
      : damage;
    await writeFile(file, damaged);
    const r = await watch(['w'], set.respond);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`tenders: the watch state ${file} ${message}${message.endsWith('or') ? ' ' : ': '}run the same command with --reset to record a new baseline (changes since its last run are then not reported)\n`);
    // The state is read while the first pages come: at most those were asked for, nothing was printed.
    expect(r.stdout).toBe('');
    expect(r.client.requests.length).toBeLessThanOrEqual(2);
    expect(await readFile(file, 'utf8')).toBe(damaged);
    expect((await watch(['w', '--reset'], set.respond)).code).toBe(0);
    expect(await stateText()).toMatch(/"tenders":5/);
  });

  it('a damaged state is the error reported, even when a page failed while it was read', async () => {
    const set = new TenderSet(5);
    await watch(['w'], set.respond);
    const file = join(dir, 'w.watch');
    await writeFile(file, (await stateText()).replace(/\n[^\n]*\n$/, '\n'));
    const r = await watch(['w'], () => ({ status: 200, json: { no: 'page' } }));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: the watch state .* is cut short \(no summary line\)/);
  });

  it('one run at a time: a live lock is exit 1 naming its process; a dead one is taken over', async () => {
    const set = new TenderSet(2);
    const lock = join(dir, 'w.watch.lock');
    const holder = (pid: number) => `${JSON.stringify({ pid, host: hostname(), started: '2026-01-01T00:00:00.000Z' })}\n`;
    await writeFile(lock, holder(process.ppid));
    const r = await watch(['w'], set.respond);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `tenders: ${join(dir, 'w.watch')} is being written by another tenders process (pid ${process.ppid}, since 2026-01-01T00:00:00.000Z): wait for it to finish, or remove ${lock} if that process is not running\n`,
    );
    expect(r.client.requests).toHaveLength(0);
    await writeFile(lock, holder(999_999_999));
    const taken = await watch(['w', '-v'], set.respond);
    expect(taken.code).toBe(0);
    expect(taken.stderr).toContain(`* took over ${lock}: pid 999999999 that held it (since 2026-01-01T00:00:00.000Z) is no longer running`);
    expect(await readdir(dir)).toEqual(['w.watch']);
  });
});
