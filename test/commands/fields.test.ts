import { describe, expect, it } from 'vitest';
import { execute } from '../../src/cli.js';
import { fieldsOf, renderFields } from '../../src/output/field-list.js';
import { FakeClient, type Responder } from '../support/fake-client.js';
import { memoryIO, type MemoryIOOptions } from '../support/io.js';

const BASE = { TENDERS_BASE_URL: 'http://service.test', NO_COLOR: '1' };

const page = (items: Record<string, unknown>[], key = 'tenders'): Responder => () => ({ json: { [key]: items, page: { nextCursor: 'c1', total: null } } });
const sample = [
  { id: 'T-1', deadline: null, buyer: { name: 'Stadt Köln', country: 'DEU' }, estimatedValue: null, tags: [] },
  { id: 'T-2', deadline: '2027-01-10T12:00:00Z', buyer: { name: 'Comune', country: 'ITA' }, estimatedValue: { amountEur: 1234.5 }, tags: ['a'] },
];

function run(argv: string[], responder: Responder = page(sample), opts: MemoryIOOptions = {}) {
  const client = new FakeClient(responder);
  const t = memoryIO({ ...opts, env: { ...BASE, ...opts.env } });
  return execute(argv, t.io, { createClient: async () => client }).then((code) => ({ code, client, ...t, out: t.stdout.text, err: t.stderr.text }));
}

describe('the fields of a sample', () => {
  it('lists every leaf path in order of first appearance, with the first value that says something', () => {
    expect(fieldsOf(sample)).toEqual([
      { path: 'id', example: 'T-1' },
      { path: 'deadline', example: '2027-01-10T12:00:00Z' },
      { path: 'buyer.name', example: 'Stadt Köln' },
      { path: 'buyer.country', example: 'DEU' },
      { path: 'estimatedValue.amountEur', example: 1234.5 },
      { path: 'tags', example: ['a'] },
    ]);
    expect(fieldsOf([{ a: null, b: '' }])).toEqual([{ path: 'a', example: null }, { path: 'b', example: null }]);
  });

  it('renders TSV with JSON examples, JSON, and a table cut to the width', async () => {
    const fields = [{ path: 'title', example: 'A "long"\ttitle\nwith lines' }, { path: 'n', example: 12345 }];
    expect(await renderFields(fields, 'tsv', { color: false })).toBe('title\t"A \\"long\\"\\ttitle\\nwith lines"\nn\t12345\n');
    expect(JSON.parse(await renderFields(fields, 'json', { color: false }))).toEqual(fields);
    expect(await renderFields(fields, 'table', { width: 20, color: false })).toBe('field  example\ntitle  A "long" tit…\nn      12345\n');
  });
});

describe('tenders fields', () => {
  it('asks for one page of 20 with the search filters, and prints a table on a terminal', async () => {
    const r = await run(['fields', '-c', 'deu', '-s', 'open'], page(sample), { stdoutTTY: true, stderrTTY: true, columns: 80 });
    expect(r.code).toBe(0);
    expect(r.client.requests).toEqual([{ path: '/api/v1/tenders/search', body: { limit: 20, buyerCountries: ['DEU'], statuses: ['open'] } }]);
    expect(r.out.split('\n')[0]).toMatch(/^field\s+example$/);
    expect(r.out).toMatch(/^buyer\.name\s+Stadt Köln$/m);
    expect(r.pager.launches).toHaveLength(1);
    expect(r.err).toBe('6 fields in the first 2 tenders; choose some with --columns id,deadline,buyer.name\n');
  });

  it('prints path<TAB>example lines into a pipe, JSON with -f json, and takes -n', async () => {
    const piped = await run(['fields', '-n', '5']);
    expect(piped.out.split('\n')[0]).toBe('id\t"T-1"');
    expect(piped.err).toBe('');
    expect(piped.client.requests[0]!.body).toEqual({ limit: 5 });
    const json = await run(['fields', '-f', 'json']);
    expect((JSON.parse(json.out) as { path: string }[]).map((f) => f.path)).toEqual(fieldsOf(sample).map((f) => f.path));
  });

  it('spells out control characters on a terminal, not in a pipe', async () => {
    const hostile = page([{ 'x\u001b[31m': '\u009b2J' }]);
    const shown = await run(['fields', '-f', 'tsv'], hostile, { stdoutTTY: true });
    expect(shown.out).toBe('x\\x1b[31m\t"\\x9b2J"\n');
    const piped = await run(['fields', '-f', 'tsv'], hostile);
    expect(piped.out).toBe('x\u001b[31m\t"\u009b2J"\n');
  });

  it('says so when nothing matches, and prints nothing', async () => {
    const r = await run(['fields', '-c', 'XXX'], page([]));
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toBe('tenders: warning: no tenders match these filters, so there are no fields to show: try fewer filters\n');
  });

  it('checks its flags before any request', async () => {
    const r = await run(['fields', '-f', 'csv']);
    expect(r.code).toBe(2);
    expect(r.client.requests).toEqual([]);
  });
});

describe('tenders orgs fields', () => {
  it('samples Search Organisations with its filters, at --path when given', async () => {
    const r = await run(['orgs', 'fields', '--query', 'stadt', '--path', '/v2/buyers/search'], page([{ id: 'O-1', name: 'Stadt', tenderCount: 3 }], 'organisations'));
    expect(r.code).toBe(0);
    expect(r.client.requests).toEqual([{ path: '/v2/buyers/search', body: { limit: 20, query: 'stadt' } }]);
    expect(r.out).toBe('id\t"O-1"\nname\t"Stadt"\ntenderCount\t3\n');
  });
});
