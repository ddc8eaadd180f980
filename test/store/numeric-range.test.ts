import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import { beyondNumeric, fitsNumeric } from '../../src/store/numeric-range.js';
import { postgres, POSTGRES_MISSING } from '../support/postgres.js';

/** Number literals on both sides of each of numeric's limits, and some far past them. */
const LITERALS = [
  '0', '-0', '1', '-12.50', '1e131071', '9.9e131071', '1e131072', '10e131071', '0.1e131072', '0.01e131073', '-1e131072',
  '1e-16383', '1.5e-16383', '1.5e-16382', '0e-16383', '0e-16384', '0.0e-16383', '0e131072', '0e999999', '0e-99999',
  `0.${'0'.repeat(16_382)}1`, `0.${'0'.repeat(16_383)}1`, `1${'0'.repeat(131_071)}`, `1${'0'.repeat(131_072)}`, `1${'0'.repeat(131_071)}.5`,
  '1e1073741822', '0e1073741822', '0e1073741823', '1e-1073741822', '1E+5', '12345678901234567890123', '1e999999', '5e-324', '1.7976931348623157e308',
];

describe('numbers beyond numeric, without a server', () => {
  it('only a RawNumber can be one: a document without one is not walked', () => {
    const doc = parseJson('{"a":[1,{"b":1e400}],"c":"1e999999","d":0.5}');
    expect(beyondNumeric(doc)).toBeUndefined();
    expect(beyondNumeric(parseJson('{"a":[1,{"b":1e200000}],"c":2}'))).toBe('1e200000');
    expect(beyondNumeric(parseJson('[[0.5],[1e-20000]]'))).toBe('1e-20000');
    expect(beyondNumeric({ a: 1e308, b: 5e-324 })).toBeUndefined();
    // A value the CLI built, its containers unmarked, is looked into when asked to.
    const query = { body: { minValue: (parseJson('[1e200000]') as unknown[])[0] } };
    expect(beyondNumeric(query)).toBeUndefined();
    expect(beyondNumeric(query, true)).toBe('1e200000');
    // As a message shows it.
    expect(beyondNumeric(parseJson(`[1${'0'.repeat(131_072)}]`))).toBe(`1${'0'.repeat(23)}…`);
  });
});

describe.skipIf(POSTGRES_MISSING)('numbers beyond numeric, as the server says', () => {
  let client: pg.Client;

  beforeAll(async () => {
    client = new pg.Client({ connectionString: await (await postgres()).createDatabase('numeric') });
    await client.connect();
  });
  afterAll(() => client.end());

  it('fitsNumeric answers as jsonb does for every literal at and past the limits', async () => {
    const verdicts = new Set<boolean>();
    for (const literal of LITERALS) {
      const held = await client.query('SELECT $1::jsonb IS NOT NULL AS held', [`[${literal}]`]).then(
        () => true,
        (err: { message: string }) => (/overflows numeric format/.test(err.message) ? false : Promise.reject(err)),
      );
      expect([literal.slice(0, 30), fitsNumeric(literal)]).toEqual([literal.slice(0, 30), held]);
      verdicts.add(held);
    }
    expect([...verdicts].sort()).toEqual([false, true]);
  });
});
