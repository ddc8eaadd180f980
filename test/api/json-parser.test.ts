import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import { RawNumber, stringifyJson } from '../../src/model/exact-json.js';

/** A small seeded generator (mulberry32): the same cases on every run. */
function random(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick };
}
type Random = ReturnType<typeof random>;

const digits = (r: Random, n: number) => Array.from({ length: n }, () => r.int(10)).join('');

/** Number literals of every kind: small, long, negative, decimal, with exponents, beyond a double's range. */
function numberLiteral(r: Random): string {
  const sign = r.next() < 0.3 ? '-' : '';
  const whole = r.next() < 0.2 ? '0' : String(1 + r.int(9)) + digits(r, r.pick([0, 2, 14, 15, 16, 17, 19, 25, 40]));
  const fraction = r.next() < 0.4 ? `.${digits(r, 1 + r.pick([0, 2, 14, 15, 16, 18, 30]))}` : '';
  const exponent = r.next() < 0.2 ? `${r.pick(['e', 'E'])}${r.pick(['', '+', '-'])}${r.pick([0, 5, 21, 300, 308, 309, 330, 400])}` : '';
  return sign + whole + fraction + exponent;
}

const KEYS = ['id', 'a', '__proto__', 'toString', 'constructor', 'hasOwnProperty', '1', '0', 'é', 'k"q', 'line\nbreak', ''];
const STRINGS = ['', 'plain', 'quote " and \\ backslash', 'tab\tnewline\n', 'ünïcödé 日本 👍🏽', '\u0001\u001f', '12345678901234567890', ': 12345678901234567890', 'e5'];

/** JSON text of a random value, with random spacing; `spaced` adds whitespace between tokens. */
function jsonText(r: Random, depth: number, spaced: boolean): string {
  const ws = () => (spaced ? r.pick(['', ' ', '\n', '\t', '\r\n  ']) : '');
  const kind = depth > 3 ? r.int(4) : r.int(6);
  switch (kind) {
    case 0:
      return numberLiteral(r);
    case 1:
      return JSON.stringify(r.pick(STRINGS));
    case 2:
      return r.pick(['true', 'false', 'null']);
    case 3:
      return numberLiteral(r);
    case 4:
      return `[${ws()}${Array.from({ length: r.int(4) }, () => ws() + jsonText(r, depth + 1, spaced) + ws()).join(',')}]`;
    default:
      return `{${ws()}${Array.from({ length: r.int(5) }, () => `${ws()}${JSON.stringify(r.pick(KEYS))}${ws()}:${ws()}${jsonText(r, depth + 1, spaced)}${ws()}`).join(',')}}`;
  }
}

/** Independent of the parser: whether a literal's decimal value is exactly that of the double it rounds to. */
function doubleHolds(literal: string): boolean {
  const n = Number(literal);
  if (!Number.isFinite(n)) return false;
  const exact = (text: string): [bigint, number] => {
    const m = /^(-?)(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text)!;
    return [BigInt(`${m[1]}${m[2]}${m[3] ?? ''}`), Number(m[4] ?? 0) - (m[3]?.length ?? 0)];
  };
  const [a, ea] = exact(literal);
  const [b, eb] = exact(String(n));
  const e = Math.min(ea, eb);
  return a * 10n ** BigInt(ea - e) === b * 10n ** BigInt(eb - e);
}

/** Numbers and nulls outside strings, in document order (strings are matched whole, so their digits are skipped). */
const SCALAR = /"(?:[^"\\]|\\.)*"|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|null)/g;

/**
 * The text stringifyJson must give back: JSON.stringify of JSON.parse's tree,
 * with each literal a double cannot hold put back verbatim (JSON.stringify
 * wrote it rounded, or as null when out of range). Scalars line up one to one.
 */
function expectedText(text: string): string {
  const literals = [...text.matchAll(SCALAR)].filter((m) => m[1] !== undefined).map((m) => m[1]!);
  let i = 0;
  return JSON.stringify(JSON.parse(text)).replace(SCALAR, (match, scalar: string | undefined) => {
    if (scalar === undefined) return match;
    const literal = literals[i++]!;
    return literal === 'null' || doubleHolds(literal) ? scalar : literal;
  });
}

describe('parseJson', () => {
  it('is JSON.parse for random documents, numbers aside, and writes every number back with its exact digits', () => {
    const r = random(20240601);
    let raw = 0;
    let exact = 0;
    for (let n = 0; n < 3000; n++) {
      const text = jsonText(r, 0, n % 2 === 0);
      const parsed = parseJson(text);
      // Structure, key order, own __proto__ keys, strings: as JSON.parse (a RawNumber serialises as its double).
      expect(JSON.stringify(parsed)).toBe(JSON.stringify(JSON.parse(text)));
      if (linesUp(text)) {
        expect(stringifyJson(parsed)).toBe(expectedText(text));
        exact++;
      }
      if (stringifyJson(parsed) !== JSON.stringify(parsed)) raw++;
    }
    // The generator does reach the slow road, and most documents are checked digit for digit.
    expect(raw).toBeGreaterThan(300);
    expect(exact).toBeGreaterThan(1500);
  });

  it('keeps the digits of the issue’s examples, and nothing else changes', () => {
    const text = '{"id":12345678901234567890,"amount":9007199254740993,"small":42,"price":12.5,"tiny":0.10000000000000001,"huge":1e400,"exp":1.5e3}';
    const parsed = parseJson(text) as Record<string, unknown>;
    expect(parsed.id).toEqual(new RawNumber('12345678901234567890'));
    expect(parsed.amount).toEqual(new RawNumber('9007199254740993'));
    expect(parsed.small).toBe(42);
    expect(parsed.exp).toBe(1500);
    expect(stringifyJson(parsed)).toBe(
      '{"id":12345678901234567890,"amount":9007199254740993,"small":42,"price":12.5,"tiny":0.10000000000000001,"huge":1e400,"exp":1500}',
    );
  });

  it('takes JSON.parse itself when no literal could lose digits, even if strings hold long digit runs', () => {
    const text = '{"id":"12345678901234567890","n":123456789012345,"d":0.5}';
    expect(parseJson(text)).toEqual(JSON.parse(text));
    expect(stringifyJson(parseJson(text))).toBe(text);
    // A long literal that a double does hold stays a number.
    expect(parseJson('[1.0000000000000000, 123456789012345680000, 0.30000000000000004]')).toEqual([1, 123456789012345680000, 0.30000000000000004]);
  });

  it('keeps __proto__ an own key, as JSON.parse does, and never sets a prototype', () => {
    const parsed = parseJson('{"__proto__":{"polluted":true},"id":12345678901234567890}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(parsed)).toEqual(['__proto__', 'id']);
    expect(stringifyJson(parsed)).toBe('{"__proto__":{"polluted":true},"id":12345678901234567890}');
  });

  it('rejects exactly what JSON.parse rejects', () => {
    const r = random(7);
    const broken = ['', ' ', '{', '[1,]', '{"a":1,}', '{"a" 1}', '[01]', '[1.]', '[-]', '[.5]', '["\u0001"]', '["\\x"]', '[tru]', '[1] x', '{"a":1}}', '["abc', '[1e]', '["\\u12"]'];
    const cases = [...broken.map((t) => t.replace(/1/, '12345678901234567890')), ...broken];
    for (let n = 0; n < 2000; n++) {
      const text = `{"big":12345678901234567890,"v":${jsonText(r, 1, true)}}`;
      const at = r.int(text.length);
      cases.push(r.next() < 0.5 ? text.slice(0, at) : text.slice(0, at) + r.pick(['"', ',', ']', '}', ':', '\\', 'x', '-', '.', 'e', '\u0000']) + text.slice(at));
    }
    for (const text of cases) {
      const native = attempt(() => JSON.parse(text));
      const ours = attempt(() => parseJson(text));
      expect(ours instanceof SyntaxError, text).toBe(native instanceof SyntaxError);
    }
  });
});

function attempt(f: () => unknown): unknown {
  try {
    return f();
  } catch (err) {
    return err;
  }
}

/**
 * Whether JSON.parse keeps the text's order of values: no object repeats a key
 * (the last wins) or has integer-like keys (they move to the front).
 */
function linesUp(text: string): boolean {
  const open: Set<string>[] = [];
  for (const m of text.matchAll(/("(?:[^"\\]|\\.)*")(\s*:)?|[{}]/g)) {
    if (m[0] === '{') open.push(new Set());
    else if (m[0] === '}') open.pop();
    else if (m[2] !== undefined) {
      const keys = open.at(-1)!;
      const key = JSON.parse(m[1]!) as string;
      if (keys.has(key) || /^\d+$/.test(key)) return false;
      keys.add(key);
    }
  }
  return true;
}
