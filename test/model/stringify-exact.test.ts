import { describe, expect, it } from 'vitest';
import { RawNumber, stringifyExact, stringifyJson } from '../../src/model/exact-json.js';
import { parseJson } from '../../src/model/json-parse.js';

describe('stringifyExact', () => {
  const plain = { a: 1, b: [1, 'x', null, { c: true }], d: {}, e: [], f: undefined, g: 'q"\n' };

  it('writes what JSON.stringify writes for values without RawNumbers, compact and pretty', () => {
    expect(stringifyExact(plain)).toBe(JSON.stringify(plain));
    expect(stringifyExact(plain, '  ')).toBe(JSON.stringify(plain, null, 2));
    expect(stringifyExact([undefined, () => 1])).toBe('[null,null]');
    expect(stringifyExact('s')).toBe('"s"');
  });

  it('keeps the digits of RawNumbers anywhere, even in containers built after parsing (not marked)', () => {
    const parsed = parseJson('{"n":12345678901234567890,"m":[9007199254740993]}') as Record<string, unknown>;
    const built = { limit: 1, ...parsed, cursor: 'c' };
    // What the walk sent before: the spread drops the mark stringifyJson relies on, so the digits went.
    expect(stringifyJson(built)).toBe('{"limit":1,"n":12345678901234567000,"m":[9007199254740992],"cursor":"c"}');
    expect(stringifyExact(built)).toBe('{"limit":1,"n":12345678901234567890,"m":[9007199254740993],"cursor":"c"}');
    expect(stringifyExact({ x: [new RawNumber('1e400')] }, '  ')).toBe('{\n  "x": [\n    1e400\n  ]\n}');
  });
});
