import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import { ResultOrder } from '../../src/run/sort-order.js';
import { FieldTable } from '../../src/run/watch/field-table.js';
import { tenderKey } from '../../src/run/watch/state.js';
import type { Responder } from '../support/fake-client.js';
import { runInProcess } from '../support/run.js';

/** Pages of results given as JSON text, parsed as the client parses a response. */
function rawPages(pages: readonly string[]): Responder {
  return ({ body }) => {
    const n = typeof body.cursor === 'string' ? Number(body.cursor.slice(1)) : 0;
    const next = n + 1 < pages.length ? `"p${n + 1}"` : 'null';
    return { json: parseJson(`{"tenders":${pages[n]},"page":{"nextCursor":${next},"total":null}}`) };
  };
}

describe('exact numbers through a walk', () => {
  it('NDJSON keeps every digit, and a big-number id repeated across a page boundary is written once', async () => {
    const r = await runInProcess(
      ['export', '-f', 'ndjson'],
      rawPages(['[{"id":12345678901234567890,"v":9007199254740993}]', '[{"id":12345678901234567890,"v":9007199254740993},{"id":12345678901234567891,"v":1}]']),
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"id":12345678901234567890,"v":9007199254740993}\n{"id":12345678901234567891,"v":1}\n');
  });
});

describe('exact numbers in a --parallel merge', () => {
  it('are ordered by their nearest double, as JSON.parse gave them before', () => {
    const order = new ResultOrder({ sortBy: 'estimatedValue', sortOrder: 'asc' });
    const [a, b] = parseJson('[{"id":12345678901234567890,"estimatedValue":{"amountEur":9007199254740993}},{"id":2,"estimatedValue":{"amountEur":1e400}}]') as Record<string, unknown>[];
    expect(order.place(a!)).toEqual({ key: 9007199254740992, id: 12345678901234567000 });
    expect(order.compare(order.place(a!)!, order.place(b!)!)).toBeLessThan(0);
  });
});

describe('exact numbers in a watch', () => {
  const parse = (text: string) => parseJson(text) as Record<string, unknown>;

  it('keys a tender by every digit of its id', () => {
    expect(tenderKey(parse('{"id":12345678901234567890}'))).toBe('12345678901234567890');
    expect(tenderKey(parse('{"id":12345678901234567891}'))).toBe('12345678901234567891');
  });

  it('sees a change in digits a double cannot hold, in a field or inside an array', () => {
    const table = new FieldTable();
    const changed = (before: string, after: string) => {
      table.fingerprint(parse(before));
      const old = table.slots.slice(0, table.length);
      table.fingerprint(parse(after));
      return table.differences(old);
    };
    expect(changed('{"id":1,"v":12345678901234567890,"a":[1]}', '{"id":1,"v":12345678901234567891,"a":[1]}')).toEqual(['v']);
    expect(changed('{"id":1,"v":1,"a":[12345678901234567890]}', '{"id":1,"v":1,"a":[12345678901234567891]}')).toEqual(['a']);
    expect(changed('{"id":1,"v":12345678901234567890}', '{"id":1,"v":12345678901234567890}')).toEqual([]);
  });
});

describe('fields that first appear on a later page (CSV)', () => {
  const drifting = rawPages([
    '[{"id":1,"title":"a"},{"id":2,"title":"b"}]',
    '[{"id":3,"title":"c","lots":[1]},{"id":4,"title":"d","buyer":{"phone":"5"}}]',
    '[{"id":5,"title":"e","lots":[2],"notes":"n"}]',
  ]);

  it('keep the first page’s columns and get one warning for the whole run, naming them all and the fix', async () => {
    const r = await runInProcess(['export'], drifting);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('id,title\n1,a\n2,b\n3,c\n4,d\n5,e\n');
    expect(r.stderr).toBe(
      'tenders: warning: 3 fields first seen after the first page are not in the CSV (its columns come from the first page): lots, buyer.phone, notes; to include them, add them to the columns: --columns id,title,lots,buyer.phone,notes\n',
    );
  });

  it('are counted in the --verbose summary, and silent with -q', async () => {
    const verbose = await runInProcess(['export', '-v'], drifting);
    expect(verbose.stderr).toMatch(/\* 5 tenders in 3 pages, 0 duplicates dropped, 3 new fields left out of the CSV, [\d.]+ s\n$/);
    const quiet = await runInProcess(['export', '-q'], drifting);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
  });

  it('are counted in the receipt', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tenders-new-fields-'));
    const receipt = join(dir, 'r.json');
    const r = await runInProcess(['export', '-q', '-o', join(dir, 'out.csv'), '--receipt', receipt], drifting);
    expect(r.code).toBe(0);
    expect(JSON.parse(await readFile(receipt, 'utf8'))).toMatchObject({ csvFieldsDropped: 3, rowsWritten: 5, complete: true });
  });

  it('are no concern of NDJSON, nor of a CSV whose --columns the user chose', async () => {
    expect((await runInProcess(['export', '-f', 'ndjson'], drifting)).stderr).toBe('');
    const chosen = await runInProcess(['export', '--columns', 'id,title'], drifting);
    expect(chosen.stderr).toBe('');
    expect(chosen.stdout).toBe('id,title\n1,a\n2,b\n3,c\n4,d\n5,e\n');
  });
});
