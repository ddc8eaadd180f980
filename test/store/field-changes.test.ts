import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import { stringifyJson, type JsonObject } from '../../src/model/exact-json.js';
import { fieldChanges } from '../../src/store/field-changes.js';

const parse = (text: string) => parseJson(text) as JsonObject;
const rows = (before: string, after: string) =>
  fieldChanges(parse(before), parse(after)).map((c) => [c.path, c.old === undefined ? '-' : stringifyJson(c.old), c.new === undefined ? '-' : stringifyJson(c.new)]);

describe('fieldChanges', () => {
  it('names changed leaves by dot path with both values, in the newer key order, removed fields last', () => {
    expect(rows('{"id":"A","a":1,"b":{"c":"x","d":[1,2]},"gone":true}', '{"id":"B","b":{"d":[1,3],"c":"x"},"a":1,"added":null}')).toEqual([
      ['b.d', '[1,2]', '[1,3]'],
      ['added', '-', 'null'],
      ['gone', 'true', '-'],
    ]);
  });

  it('tells numbers apart by every digit, and a string from a number', () => {
    expect(rows('{"n":12345678901234567890,"s":"1"}', '{"n":12345678901234567891,"s":1}')).toEqual([
      ['n', '12345678901234567890', '12345678901234567891'],
      ['s', '"1"', '1'],
    ]);
    expect(rows('{"n":12345678901234567890}', '{"n":12345678901234567890}')).toEqual([]);
  });

  it('records an object turning into null (or a string) as one change of the whole value', () => {
    expect(rows('{"v":{"amount":1}}', '{"v":null}')).toEqual([['v', '{"amount":1}', 'null']]);
    expect(rows('{"v":"n/a"}', '{"v":{"amount":1}}')).toEqual([['v', '"n/a"', '{"amount":1}']]);
  });

  it('walks prototype-named keys as data', () => {
    expect(rows('{"__proto__":{"x":1},"toString":"a"}', '{"__proto__":{"x":2},"toString":"a"}')).toEqual([['__proto__.x', '1', '2']]);
    expect(rows('{"constructor":{"name":"a"}}', '{}')).toEqual([['constructor', '{"name":"a"}', '-']]);
  });
});
