import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execute } from '../../src/cli.js';
import { formatBinarySize, formatSize } from '../../src/model/numbers.js';
import { FORMAT_DEFINITIONS, formatOfFile, FORMATS, refuseOnTerminal } from '../../src/output/format-registry.js';
import { createFormatter, type FormatOptions } from '../../src/output/formatter.js';
import { FakeClient, pagedTenders } from '../support/fake-client.js';
import { tmpdir } from 'node:os';
import { memoryIO } from '../support/io.js';

const OPTS: FormatOptions = { header: true, headerStyle: 'path', excelSafe: false, color: false };

describe('the terminal decorator of createFormatter', () => {
  it('forwards every method of the formatter it cleans (droppedFields, state), cleaning only the data', async () => {
    const csv = await createFormatter('csv', { ...OPTS, terminal: true });
    csv.page([{ id: 1 }]);
    csv.page([{ id: 2, late: 'x\x1b[31m' }]);
    expect(csv.droppedFields?.()).toEqual(['late']);
    expect(csv.state()).toMatchObject({ rows: 2, columns: ['id'], droppedFields: ['late'] });
    expect(csv.page([{ id: 'a\x07' }])).toBe('a\\x07\n');
  });

  it.each(['csv', 'tsv'])('a %s export to a terminal warns of the fields after the first page, naming its format, and counts them in the receipt', async (format) => {
    const dir = mkdtempSync(join(tmpdir(), 'tenders-formatter-'));
    const receipt = join(dir, 'receipt.json');
    const t = memoryIO({ env: { TENDERS_BASE_URL: 'http://service.test' }, stdoutTTY: true, stderrTTY: true, columns: 200 });
    const client = new FakeClient(pagedTenders(150, (i) => (i > 100 ? { late: 'x' } : {})));
    const code = await execute(['export', '-f', format, '--receipt', receipt, '-v'], t.io, { createClient: async () => client });
    expect(code).toBe(0);
    expect(t.stderr.text).toContain(`1 field first seen after the first page is not in the ${format.toUpperCase()}`);
    expect(t.stderr.text).toContain(`1 new fields left out of the ${format.toUpperCase()}`);
    expect(JSON.parse(readFileSync(receipt, 'utf8')).csvFieldsDropped).toBe(1);
  });
});

describe('the format registry', () => {
  it('lists each format once, with the extensions -o infers it from', () => {
    expect(FORMATS).toEqual(['table', 'csv', 'ndjson', 'json', 'tsv', 'ics', 'atom', 'ocds', 'parquet']);
    expect(new Set(FORMAT_DEFINITIONS.flatMap((d) => d.extensions)).size).toBe(FORMAT_DEFINITIONS.flatMap((d) => d.extensions).length);
    expect(['a.CSV', 'a.jsonl', 'a.ndjson', 'a.json', 'a.OCDS.json', 'a.tsv', 'a.ics', 'a.atom', 'a.parquet', '.csv', 'a.txt', 'a'].map(formatOfFile)).toEqual([
      'csv', 'ndjson', 'ndjson', 'json', 'ocds', 'tsv', 'ics', 'atom', 'parquet', undefined, undefined, undefined,
    ]);
  });

  it('refuses a binary format on a terminal with a usage error, and nothing else', () => {
    const binary = { name: 'parquet', traits: { ...FORMAT_DEFINITIONS[1].traits, binary: true } };
    expect(() => refuseOnTerminal(binary, true)).toThrow(expect.objectContaining({ name: 'UsageError', message: expect.stringMatching(/^--format parquet writes binary data.*-o FILE/) }));
    expect(() => refuseOnTerminal(binary, false)).not.toThrow();
    for (const definition of FORMAT_DEFINITIONS) {
      if (definition.traits.binary) expect(() => refuseOnTerminal(definition, true)).toThrow();
      else expect(() => refuseOnTerminal(definition, true)).not.toThrow();
    }
  });

  it('loads each formatter lazily from its definition', async () => {
    for (const definition of FORMAT_DEFINITIONS) {
      const formatter = (await definition.load())(OPTS);
      expect(formatter.state().rows, definition.name).toBe(0);
    }
  });
});

describe('the one byte formatter', () => {
  it('says sizes in decimal units, and a limit defined in powers of two in binary ones (never kB for 1024)', () => {
    expect([999, 1024, 16 * 1024 * 1024].map((n) => formatSize(n))).toEqual(['999 B', '1.0 kB', '16.8 MB']);
    expect([1000, 1024, 16 * 1024 * 1024].map((n) => formatBinarySize(n))).toEqual(['1000 B', '1.0 KiB', '16.0 MiB']);
  });
});
