import { describe, expect, it } from 'vitest';
import { exportSpec } from '../../src/commands/export.js';
import type { GlobalFlags, OutputFlags } from '../../src/commands/flags.js';
import { searchSpec } from '../../src/commands/search.js';
import { walkPlan, type PagedFlags } from '../../src/commands/paged-command.js';
import { syncPlan, type SyncFlags } from '../../src/commands/sync.js';
import { watchPlan, type WatchFlags } from '../../src/commands/watch.js';
import type { Env } from '../../src/io.js';
import type { TenderFilterFlags } from '../../src/query/tender-body.js';
import { memoryIO, type MemoryIOOptions } from '../support/io.js';

/**
 * Flags → plan, without running anything (as gh tests a command through its
 * runF hook): each plan function is pure, so its decisions are read here from
 * the plan itself. The full command lines (test/commands/commands.test.ts,
 * test/run/*) add what a plan cannot show: commander's parsing, and the run.
 */

/** What commander gives when no flag is given: the defaults of the global and output flags. */
const GLOBALS: GlobalFlags = { timeout: '30000', retries: '5', maxWait: '120', color: 'auto', pager: true };
const OUTPUT: OutputFlags = { header: true, headerStyle: 'path' };
const ENV: Env = { TENDERS_BASE_URL: 'http://service.test', HOME: '/home/ada' };

const io = (opts: MemoryIOOptions = {}) => memoryIO({ ...opts, env: { ...ENV, ...opts.env } }).io;

describe('walkPlan', () => {
  const search = (flags: Partial<PagedFlags<TenderFilterFlags>> = {}, opts: MemoryIOOptions = {}, argv: string[] = []) =>
    walkPlan(searchSpec, { ...OUTPUT, ...flags }, GLOBALS, undefined, { io: io(opts) }, { name: 'search', argv });
  const exporting = (flags: Partial<PagedFlags<TenderFilterFlags>> = {}) => walkPlan(exportSpec, { ...OUTPUT, ...flags }, GLOBALS, undefined, { io: io() });

  it('search: one page of the default size, hints, a table on a terminal and NDJSON into a pipe', () => {
    const plan = search();
    expect(plan).toMatchObject({ all: false, hints: true, resumable: false, parallel: 1, max: undefined, cursor: undefined });
    expect(plan.query).toMatchObject({ body: {}, noun: 'tenders' });
    expect(plan.output).toMatchObject({ format: 'ndjson', file: undefined, resume: false });
    expect(search({}, { stdoutTTY: true }).output.format).toBe('table');
    expect(search({ output: 'open.csv' }, { stdoutTTY: true }).output).toMatchObject({ format: 'csv', file: 'open.csv' });
  });

  it('--max asks for pages no larger than it; --all for the largest', () => {
    expect(search({ max: '30' })).toMatchObject({ max: 30, query: { body: { limit: 30 } } });
    expect(search({ max: '500' }).query.body.limit).toBe(100);
    expect(search({ all: true })).toMatchObject({ all: true, query: { body: { limit: 100 } } });
  });

  it('the filters make the body, and the table keeps the sorted column in view', () => {
    const plan = search({ country: ['DEU'], status: ['open'], sort: 'deadline' });
    expect(plan.query.body).toEqual({ sortBy: 'deadline', buyerCountries: ['DEU'], statuses: ['open'] });
    expect(plan.output.sortColumn).toBe('deadline');
  });

  it("the next page's command is the command line without --cursor, its password left out", () => {
    const plan = search({ cursor: 'C1' }, {}, ['search', '-c', 'DEU', '--cursor', 'C1', '--base-url', 'https://ada:secret@service.test']);
    expect(plan.cursor).toBe('C1');
    expect(plan.nextPageCommand).toEqual(['tenders', 'search', '-c', 'DEU', '--base-url', 'https://ada@service.test']);
    expect(search().nextPageCommand).toBeUndefined();
  });

  it('export: every page, CSV by default, resumable, no hints', () => {
    const plan = exporting();
    expect(plan).toMatchObject({ all: true, hints: false, resumable: true, nextPageCommand: undefined, output: { format: 'csv' } });
    expect(exporting({ output: 'all.ndjson' }).output).toMatchObject({ format: 'ndjson', file: 'all.ndjson' });
    expect(exporting({ format: 'ndjson', output: 'all.txt' }).output).toMatchObject({ format: 'ndjson', file: 'all.txt' });
  });

  it.each([
    ['export --cursor', () => exporting({ cursor: 'C1' }), /^export always fetches every page from the first/],
    ['export --all', () => exporting({ all: true }), /leave out --all/],
    ['--parallel with --cursor', () => search({ parallel: '4', cursor: 'C1', all: true }), /--cursor continues one cursor chain: leave out --parallel/],
    ['--parallel on one page', () => search({ parallel: '4' }), /use it with --all or --max/],
    ['--resume without -o', () => exporting({ resume: true }), /^--resume continues an export into a file: use it with -o FILE$/],
    ['-o naming another format than -f', () => exporting({ format: 'ndjson', output: 'all.csv' }), /^-o all.csv names a csv file but --format is ndjson/],
  ])('%s is a usage error', (_what, plan, message) => {
    expect(plan).toThrow(expect.objectContaining({ name: 'UsageError', message: expect.stringMatching(message) }));
  });

  it('--parallel is taken where every page of each chain is walked', () => {
    expect(search({ parallel: '4', all: true }).parallel).toBe(4);
    expect(exporting({ parallel: '3' }).parallel).toBe(3);
  });
});

describe('syncPlan', () => {
  const sync = (name: string | undefined, flags: Partial<SyncFlags> = {}, env: Env = {}, argv: string[] = []) =>
    syncPlan(name, { ...OUTPUT, ...flags }, GLOBALS, io({ env }), argv);

  it('a name alone runs the saved query, into the default copy, a page of 100 at a time', () => {
    const plan = sync('deu-open');
    expect(plan).toMatchObject({ name: 'deu-open', query: undefined, limit: 100, newOnly: false, reset: false, parallel: 1, receipt: undefined });
    expect(plan.db.location).toBe('/home/ada/.local/share/tenders/tenders.db');
    expect(sync('deu-open', {}, { TENDERS_DB: 'postgres://db.test/tenders' }).db.location).toBe('postgres://db.test/tenders');
    expect(sync('deu-open', { db: 'copy.db' }, { TENDERS_DB: 'postgres://db.test/tenders' }).db.location).toBe('copy.db');
  });

  it("filters are the query to save, without the paging fields; --org saves the organisation's search", () => {
    expect(sync('deu', { country: ['DEU'], sort: 'deadline', limit: '50' })).toMatchObject({
      query: { org: null, body: { sortBy: 'deadline', buyerCountries: ['DEU'] } },
      limit: 50,
    });
    const org = sync('buyer', { org: 'ORG-DEU-0007' });
    expect(org.query).toEqual({ org: 'ORG-DEU-0007', body: {} });
    expect(org.pathFor('ORG-DEU-0007')).toContain('ORG-DEU-0007');
    expect(org.pathFor(null)).not.toContain('ORG-DEU-0007');
  });

  it('--receipt records the command line under sync', () => {
    expect(sync('deu', { receipt: 'r.json', newOnly: true }, {}, ['sync', 'deu', '--new-only', '--receipt', 'r.json']).receipt).toMatchObject({
      file: 'r.json',
      command: 'sync',
      argv: ['sync', 'deu', '--new-only', '--receipt', 'r.json'],
    });
  });

  it.each([
    ['no NAME', () => sync(undefined), /^sync needs a NAME/],
    ['an output flag', () => sync('deu', { format: 'csv' }), /^-f is for --list/],
    ['-o', () => sync('deu', { output: 'x.csv' }), /^-o is for --list/],
    ['a bad name', () => sync('../etc'), /^a sync name is .*'..\/etc' is not one$/],
    ['a bad --limit', () => sync('deu', { limit: '0' }), /^--limit takes a whole number from 1 to 100, not '0'$/],
  ])('%s is a usage error', (_what, plan, message) => {
    expect(plan).toThrow(expect.objectContaining({ name: 'UsageError', message: expect.stringMatching(message) }));
  });
});

describe('watchPlan', () => {
  const DEFAULTS = { ...OUTPUT, initial: 'none', webhookChanges: '25', feedSize: '200' } as const;
  const watch = (name: string | undefined, flags: Partial<WatchFlags> = {}, opts: MemoryIOOptions = {}, argv: string[] = []) =>
    watchPlan(name, { ...DEFAULTS, ...flags }, GLOBALS, io(opts), argv);

  it('state in a file of the state directory, the output as search gives it, no webhook', () => {
    const plan = watch('deu-open');
    expect(plan).toMatchObject({ name: 'deu-open', dir: '/home/ada/.local/state/tenders/watches', query: undefined, initial: 'none', webhooks: [] });
    expect(plan.db).toBeUndefined();
    expect(plan).toMatchObject({ tempDir: '/tmp', limit: 100, webhookChanges: 25, feedSize: 200 });
    expect(plan.output.format).toBe('ndjson');
    expect(watch('deu-open', {}, { stdoutTTY: true }).output.format).toBe('table');
    expect(watch('deu-open', {}, { env: { TENDERS_STATE_DIR: '/srv/watches', TMPDIR: '/var/tmp/' } })).toMatchObject({ dir: '/srv/watches', tempDir: '/var/tmp' });
  });

  it('a PostgreSQL copy (--db, or TENDERS_DB naming one) keeps the state, the directory is where files move in from', () => {
    expect(watch('w', { db: 'postgres://db.test/t' })).toMatchObject({ db: { location: 'postgres://db.test/t' }, dir: '/home/ada/.local/state/tenders/watches' });
    expect(watch('w', {}, { env: { TENDERS_DB: 'postgresql://db.test/t', HOME: undefined } })).toMatchObject({ db: { location: 'postgresql://db.test/t' }, dir: undefined });
    // A SQLite copy in TENDERS_DB is the sync's: the watch stays in its file.
    const sqlite = watch('w', {}, { env: { TENDERS_DB: '/data/tenders.db' } });
    expect(sqlite.db).toBeUndefined();
    expect(sqlite.dir).toBe('/home/ada/.local/state/tenders/watches');
  });

  it('--webhook replaces TENDERS_WEBHOOK, and a receipt keeps no webhook secret', () => {
    const env = { TENDERS_WEBHOOK: 'https://hooks.test/env-secret' };
    expect(watch('w', {}, { env }).webhooks.map((w) => w.url.href)).toEqual(['https://hooks.test/env-secret']);
    const hook = 'https://hooks.test/services/T0/B0/secret';
    const plan = watch('w', { webhook: [hook], receipt: 'r.json' }, { env }, ['watch', 'w', '--webhook', hook, '--receipt', 'r.json']);
    expect(plan.webhooks.map((w) => w.url.href)).toEqual([hook]);
    expect(JSON.stringify(plan.receipt)).not.toContain('secret');
    expect(plan.receipt?.argv.slice(0, 3)).toEqual(['watch', 'w', '--webhook']);
  });

  it.each([
    ['no NAME', () => watch(undefined), /^watch needs a NAME/],
    ['--db naming a SQLite copy', () => watch('w', { db: 'copy.db' }), /^watch --db names a PostgreSQL copy/],
    ['no state directory', () => watch('w', {}, { env: { HOME: undefined } }), /^no place for watch state/],
    ['--feed-size 0', () => watch('w', { feedSize: '0' }), /--feed-size/],
    ['--webhook-changes over 1000', () => watch('w', { webhookChanges: '1001' }), /--webhook-changes/],
    ['a --webhook that is no URL', () => watch('w', { webhook: ['hooks'] }), /--webhook/],
  ])('%s is a usage error', (_what, plan, message) => {
    expect(plan).toThrow(expect.objectContaining({ name: 'UsageError', message: expect.stringMatching(message) }));
  });
});
