import { describe, expect, it } from 'vitest';
import { countFormat, countFormats } from '../../src/output/counts.js';
import { FORMAT_DEFINITIONS } from '../../src/output/format-registry.js';
import { pagedTenders } from '../support/fake-client.js';
import { runInProcess } from '../support/run.js';

describe("a format's own flag with another format", () => {
  it.each([
    [['search', '-f', 'csv', '--remind', '1d'], '--remind is for the ics format, not csv: add -f ics'],
    [['export', '-f', 'ndjson', '--ocid-prefix', 'ocds-abc123'], '--ocid-prefix is for the ocds format, not ndjson: add -f ocds'],
  ])('%j is a usage error naming the format that takes it, before any request', async (args, message) => {
    const r = await runInProcess(args, pagedTenders(3));
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: `tenders: ${message}\n` });
    expect(r.client.requests).toEqual([]);
  });

  it('is taken with its own format', async () => {
    const r = await runInProcess(['search', '-f', 'ics', '--remind', '1d'], pagedTenders(3, () => ({ deadline: '2027-01-01T12:00:00Z' })));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('TRIGGER:-P1D');
  });
});

describe('the traits code asks instead of names', () => {
  it('the table alone is for people', () => {
    expect(FORMAT_DEFINITIONS.filter((d) => d.traits.forPeople).map((d) => d.name)).toEqual(['table']);
  });

  it("count's text and json are its own, writing one total; the registry's other record formats need --by, the table drawn as text's", () => {
    expect(countFormats()).toEqual({ all: ['text', 'table', 'csv', 'ndjson', 'json', 'tsv'], byOnly: ['table', 'csv', 'ndjson', 'tsv'] });
    const capped = { count: 10000, capped: true };
    expect(countFormat('text').total?.(capped)).toBe('10000+');
    expect(countFormat('json').total?.(capped)).toBe('{"count":10000,"capped":true}');
    expect(countFormats().all.map((name) => [name, countFormat(name).parts])).toEqual([
      ['text', 'table'],
      ['table', 'table'],
      ['csv', { rows: 'csv' }],
      ['ndjson', { rows: 'ndjson' }],
      ['json', 'document'],
      ['tsv', { rows: 'tsv' }],
    ]);
  });
});
