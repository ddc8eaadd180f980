import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addLocalFilters, addTenderFilters, localFilterFlags } from '../../src/commands/flags.js';
import { UsageError } from '../../src/errors.js';
import { savedQueryBody, tenderBody } from '../../src/query/tender-body.js';
import { bodyAsFlags, LOCAL_ONLY_FILTERS, selectsTenders, TENDER_FILTERS } from '../../src/query/tender-filters.js';
import { DIMENSIONS } from '../../src/run/partition.js';
import { describeQuery } from '../../src/run/watch/query.js';
import { FakeClient, pagedTenders } from '../support/fake-client.js';
import { runInProcess } from '../support/run.js';

/** A command with the online filters, and with the local ones when asked; parses argv and returns what the action saw. */
function parse(argv: string[], local = false) {
  const cmd = new Command('search').exitOverride().configureOutput({ writeErr: () => undefined });
  addTenderFilters(cmd);
  if (local) addLocalFilters(cmd);
  let seen: ReturnType<typeof localFilterFlags> | undefined;
  cmd.action((...args: unknown[]) => {
    seen = localFilterFlags(args[args.length - 1] as Command);
  });
  cmd.parse(argv, { from: 'user' });
  return { cmd, flags: seen! };
}

describe('the filter table', () => {
  it('names each row by the key commander gives its flag', () => {
    const cmd = new Command();
    addTenderFilters(cmd);
    addLocalFilters(cmd);
    const options = new Map(cmd.options.map((option) => [option.long, option]));
    for (const row of TENDER_FILTERS) {
      if (row.positional) expect(cmd.registeredArguments.map((arg) => arg.name())).toContain(row.key);
      else expect(options.get(row.flag)?.attributeName()).toBe(row.key);
    }
  });

  it('gives online commands the online filters only, in the order of --help, with their values for completion', () => {
    const cmd = new Command();
    addTenderFilters(cmd);
    expect(cmd.options.map((option) => option.flags)).toEqual([
      '-c, --country <codes>',
      '-s, --status <values>',
      '--sort <field>',
      '--order <order>',
      '-n, --limit <n>',
      '--filter <key=value>',
    ]);
    expect(cmd.registeredArguments).toEqual([]);
    expect(cmd.options.find((option) => option.long === '--sort')?.argChoices).toEqual(['publicationDate', 'deadline', 'estimatedValue']);
    expect(cmd.options.find((option) => option.long === '--order')?.defaultValueDescription).toBe('the service default for the sort field');
  });

  it('adds the local-only filters and the positional WORDS with addLocalFilters, read back by localFilterFlags', () => {
    const { cmd, flags } = parse(['hospital', 'cleaning', '--since', '7d', '--min-value', '1e6', '-c', 'deu', '--deadline-before', '+14d', '--sync', 'deu-open'], true);
    expect(cmd.options.map((option) => option.long)).toEqual(expect.arrayContaining(LOCAL_ONLY_FILTERS.filter((r) => !r.positional).map((r) => r.flag)));
    expect(flags).toMatchObject({ words: ['hospital', 'cleaning'], since: '7d', minValue: '1e6', country: ['deu'], deadlineBefore: '+14d', sync: 'deu-open' });
    expect(parse([], true).flags.words).toEqual([]);
  });

  it('splits walks by the rows marked partition, country first', () => {
    expect(DIMENSIONS).toEqual({ country: 'buyerCountries', status: 'statuses' });
    expect(Object.keys(DIMENSIONS)).toEqual(['country', 'status']);
  });

  it('knows a query from paging: -n alone chooses no tenders, and a saved query leaves the page size out', () => {
    expect(selectsTenders({ limit: '5' })).toBe(false);
    expect(selectsTenders({ country: [] })).toBe(false);
    expect(selectsTenders({ order: 'asc' })).toBe(true);
    expect(selectsTenders({ filter: ['a=1'] })).toBe(true);
    expect(savedQueryBody({ limit: '5', country: ['deu'] })).toEqual({ buyerCountries: ['DEU'] });
  });

  it('describes a body as the flags that give it, every --filter value exact', () => {
    const body = tenderBody({ sort: 'deadline', country: ['deu,fra'], status: ['open'], limit: '5', filter: ['n=12345678901234567890', 'q=bridge', 'v={"a":[1]}'] });
    expect(bodyAsFlags(body)).toEqual(['-c DEU,FRA', '-s open', '--sort deadline', '-n 5', '--filter n=12345678901234567890', '--filter q=bridge', '--filter v={"a":[1]}']);
    // The same words whatever order the keys were kept in (a PostgreSQL copy's jsonb sorts them).
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    expect(bodyAsFlags(reordered)).toEqual(bodyAsFlags(body));
    expect(describeQuery({ org: 'ORG-1', body: savedQueryBody({ order: 'asc' }) })).toBe('--org ORG-1 --order asc');
    expect(describeQuery({ org: null, body: {} })).toBe('(every tender)');
  });
});

describe('local-only filters on an online command', () => {
  it('are refused with a usage error that says to add --local', () => {
    const refused = (flags: Parameters<typeof tenderBody>[0]) => () => tenderBody(flags);
    expect(refused({ since: '7d' })).toThrow(new UsageError('--since filters the local copy that tenders sync keeps: add --local'));
    expect(refused({ country: ['deu'], maxValue: '5' })).toThrow(/^--max-value filters the local copy .*: add --local$/);
    expect(refused({ words: ['hospital', 'cleaning'] })).toThrow(
      new UsageError("WORDS ('hospital cleaning') search the local copy that tenders sync keeps: add --local"),
    );
    for (const row of LOCAL_ONLY_FILTERS) expect(refused({ [row.key]: row.positional ? [row.example] : row.example })).toThrow(UsageError);
  });

  it('an empty WORDS list is no WORDS', () => {
    expect(tenderBody({ words: [] })).toEqual({});
  });
});

describe('--filter KEY=<big number>', () => {
  /** A client that keeps the text of each request body, as the service would read it. */
  class RawClient extends FakeClient {
    readonly texts: string[] = [];
    override post(path: string, body: string, signal?: AbortSignal) {
      this.texts.push(body);
      return super.post(path, body, signal);
    }
  }

  it('sends the number with every digit, in the body of every page and in --dry-run', async () => {
    const client = new RawClient(pagedTenders(3));
    const r = await runInProcess(['search', '--filter', 'minValue=12345678901234567890', '--filter', 'ids=[9007199254740993,1.5]', '-n', '2', '--all'], client);
    expect(r.code).toBe(0);
    expect(client.texts).toEqual([
      '{"limit":2,"minValue":12345678901234567890,"ids":[9007199254740993,1.5]}',
      '{"limit":2,"minValue":12345678901234567890,"ids":[9007199254740993,1.5],"cursor":"c2"}',
    ]);
    const dry = await runInProcess(['count', '--filter', 'minValue=12345678901234567890', '--dry-run'], pagedTenders(0));
    expect(dry.stdout).toBe('POST http://service.test/api/v1/tenders/search\n{\n  "minValue": 12345678901234567890,\n  "limit": 1\n}\n');
  });

  it('a watch saves it with every digit and sends it so on later runs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tenders-filter-'));
    const env = { TENDERS_STATE_DIR: dir };
    const first = new RawClient(pagedTenders(1));
    expect((await runInProcess(['watch', 'big', '--filter', 'minValue=12345678901234567890'], first, { env })).code).toBe(0);
    const saved = (await readFile(join(dir, 'big.watch'), 'utf8')).split('\n')[0]!;
    expect(saved).toContain('"body":{"minValue":12345678901234567890}');
    const later = new RawClient(pagedTenders(1));
    expect((await runInProcess(['watch', 'big'], later, { env })).code).toBe(0);
    expect(later.texts).toEqual(['{"minValue":12345678901234567890,"limit":100}']);
    const again = await runInProcess(['watch', 'big', '--filter', 'minValue=12345678901234567891'], pagedTenders(1), { env });
    expect(again).toMatchObject({ code: 2, stderr: expect.stringContaining("follows '--filter minValue=12345678901234567890'") });
  });

  it('keeps small numbers, strings and the prototype-named keys as before', () => {
    expect(JSON.stringify(tenderBody({ filter: ['a=1', 'b=x', '__proto__={"x":1}'] }))).toBe('{"a":1,"b":"x","__proto__":{"x":1}}');
  });
});
