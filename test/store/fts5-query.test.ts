import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { fts5Refusal, parseFts5, type Expr, type Term } from '../../src/store/fts5-query.js';
import { ftsError } from '../../src/store/rules.js';
import { tokens } from '../../src/store/unicode61.js';

/**
 * The PostgreSQL copy's reading of a full-text query (src/store/fts5-query.ts)
 * against SQLite FTS5's own, on a table of the SQLite copy's tokenizer: the
 * same queries refused with the same reason, and the same rows for the rest
 * (the expression evaluated here on the same rows; postgres-fts.test.ts asks
 * the server).
 */
const ROWS: [string, string][] = [
  ['a b', 'c'],
  ['b a', ''],
  ['a', 'b'],
  ['ab c', 'a'],
  ['c', 'c'],
  ['abc', 'b c'],
  ['a c b', ''],
  ['', 'a b'],
  ['b', ''],
  ['x', 'y'],
  ['école', 'θεσσαλονίκης'],
];

const db = new Database(':memory:');
db.exec("CREATE VIRTUAL TABLE t USING fts5(title, buyer_name, tokenize='unicode61 remove_diacritics 2', columnsize=0)");
const insert = db.prepare('INSERT INTO t (rowid, title, buyer_name) VALUES (?, ?, ?)');
ROWS.forEach(([title, buyer], i) => insert.run(i + 1, title, buyer));
const match = db.prepare('SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid').pluck();
afterAll(() => db.close());

const columns = ROWS.map((row) => row.map((text) => tokens(text)));

/** FTS5's answer: the rows, or its reason for refusing (as the SQLite copy words it, without "fts5: "). */
function fts5(query: string): number[] | string {
  try {
    return match.all(query) as number[];
  } catch (err) {
    return (err as Error).message.replace(/^fts5: /, '');
  }
}

function phraseIn(terms: Term[], words: string[]): boolean {
  return words.some((_, i) => terms.every((t, k) => (t.prefix ? words[i + k]?.startsWith(t.token) : words[i + k] === t.token)));
}

function matches(expr: Expr, row: string[][]): boolean {
  switch (expr.type) {
    case 'eof':
      return false;
    case 'string':
      return row.some((words) => phraseIn(expr.phrases[0]!, words));
    case 'and':
      return expr.children.every((c) => matches(c, row));
    case 'or':
      return expr.children.some((c) => matches(c, row));
    case 'not':
      return matches(expr.children[0]!, row) && !matches(expr.children[1]!, row);
  }
}

/** Our answer, in FTS5's terms: the rows (a special query: FTS5's row 0), the reason, or 'FTS5 only' when it needs FTS5 alone. */
function ours(query: string): number[] | string {
  let parsed;
  try {
    parsed = parseFts5(query);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    // FTS5's reason, and the one message both engines make of it.
    const reason = fts5Refusal(query)!;
    expect((err as Error).message).toBe(ftsError(query, reason).message);
    return reason;
  }
  if (parsed.special) return [0];
  if (parsed.near || parsed.columns || parsed.caret) return 'FTS5 only';
  return ROWS.flatMap((_, i) => (matches(parsed.expr, columns[i]!) ? [i + 1] : []));
}

function same(query: string): void {
  const theirs = fts5(query);
  const mine = ours(query);
  if (mine === 'FTS5 only') expect(Array.isArray(theirs), `${JSON.stringify(query)}: FTS5 accepts it`).toBe(true);
  else expect(mine, JSON.stringify(query)).toEqual(theirs);
}

describe('an FTS5 query read as FTS5 reads it', () => {
  const cases: [string, number[] | string][] = [
    // A phrase of no words (a bareword or phrase of no letters or digits) beside others is left out...
    ['a 🚑 b', [1, 2, 3, 7, 8]],
    ['a €', [1, 2, 3, 4, 7, 8]],
    ['"" a', [1, 2, 3, 4, 7, 8]],
    ['a "" b', [1, 2, 3, 7, 8]],
    ['"" "" a', [1, 2, 3, 4, 7, 8]],
    ['a ""*', [1, 2, 3, 4, 7, 8]],
    ['(a "") AND b', [1, 2, 3, 7, 8]],
    // ...alone, or under AND, it matches nothing; OR and NOT leave it out.
    ['""', []],
    ['— €', []],
    ['a AND ""', []],
    ['"" AND a', []],
    ['a OR ""', [1, 2, 3, 4, 7, 8]],
    ['"" OR a', [1, 2, 3, 4, 7, 8]],
    ['a NOT ""', [1, 2, 3, 4, 7, 8]],
    ['"" NOT a', []],
    ['("" OR "") OR b', [1, 2, 3, 6, 7, 8, 9]],
    ['("") AND a', []],
    // + joins words into a phrase; the * of the last part is the phrase's last word's.
    ['"" + a', [1, 2, 3, 4, 7, 8]],
    ['a + ""', [1, 2, 3, 4, 7, 8]],
    ['a* + ""', [1, 2, 3, 4, 7, 8]],
    ['a + ""*', [1, 2, 3, 4, 6, 7, 8]],
    ['a* + b', [1, 8]],
    ['ab* + c', [4]],
    // Precedence: NOT, then AND, then OR; side by side binds tightest.
    ['a OR b c', [1, 2, 3, 4, 6, 7, 8]],
    ['a b OR c', [1, 2, 3, 4, 5, 6, 7, 8]],
    ['a NOT b NOT x', [4]],
    ['a AND b NOT c', [2, 3, 8]],
    // Side by side joins phrases only: a group beside anything is refused.
    ['(a OR b) c', 'syntax error near "c"'],
    ['(a) b', 'syntax error near "b"'],
    ['x (y)', 'syntax error near "x"'],
    ['a (b', 'syntax error near ""'],
    ['(a NOT "") c', 'syntax error near "c"'],
    ['title:(a) b', 'syntax error near "b"'],
    ['near(a b)', 'syntax error near "near"'],
    ['a (', 'syntax error near ""'],
    ['a)', 'syntax error near ")"'],
    ['()', 'syntax error near ")"'],
    ['AND a', 'syntax error near "AND"'],
    ['a OR', 'syntax error near ""'],
    ['a +', 'syntax error near ""'],
    ['+ a', 'syntax error near "+"'],
    ['a ++ b', 'syntax error near "+"'],
    ['a^', 'syntax error near ""'],
    ['NEAR(a b,)', 'syntax error near ")"'],
    // The words FTS5 gives other refusals.
    ['"open', 'unterminated string'],
    ['covid-19', 'no such column: 19'],
    ['a:b', 'no such column: a'],
    ['NEAR(a b, x)', 'expected integer, got "x"'],
    ["a'", 'syntax error near "\'"'],
    ['a.b', 'syntax error near "."'],
    ['a\fb', 'syntax error near "\f"'],
    ['* a', 'unknown special query: a'],
    [' *reads', 'syntax error near "*"'],
    // Only space, tab and line ends separate barewords: any other space is in one, where unicode61 cuts it into a phrase.
    ['a\u00a0b', [1, 8]],
    ['b\u3000a', [2]],
    ['a\tb\r\nc', [1, 7]],
    ['a_b', [1, 8]],
    // Lower case, upper case, keywords.
    ['A AND b', [1, 2, 3, 7, 8]],
    ['a and b', []],
    ['ÉCOLE', [11]],
    ['θεσσαλονικης', []],
    ['ΘΕΣΣΑΛΟΝΊΚΗΣ', [11]],
    // *reads and *id are asked of the table, not its rows.
    ['*reads', [0]],
    ['*ID', [0]],
    // A NUL ends the query.
    ['a\0 OR b', [1, 2, 3, 4, 7, 8]],
    ['\0a', 'syntax error near ""'],
  ];
  for (const [query, expected] of cases) {
    it(`${JSON.stringify(query)}: ${JSON.stringify(expected)}, as FTS5`, () => {
      expect(fts5(query)).toEqual(expected);
      expect(ours(query)).toEqual(expected);
    });
  }

  it('NEAR(...), column filters and ^ are read as FTS5 reads them, and marked as FTS5 only', () => {
    for (const query of ['NEAR(a b)', 'NEAR(a b, 2) c', 'title:a', '{title buyer_name}:a', '-buyer_name:a', 'TITLE:(a OR b)', '^a', 'a ^b', '"title":a']) {
      expect(Array.isArray(fts5(query)), query).toBe(true);
      expect(ours(query), query).toBe('FTS5 only');
    }
  });

  it('refuses as FTS5 where its parser runs out of stack (nested groups) or its expression is too deep (NOT after NOT)', () => {
    for (let n = 95; n <= 101; n++) same(`${'('.repeat(n)}a${')'.repeat(n)}`);
    for (let n = 30; n <= 36; n++) same(`${'a OR ('.repeat(n)}b${')'.repeat(n)}`);
    for (let n = 254; n <= 258; n++) same(`a${' NOT b'.repeat(n)}`);
    for (let n = 126; n <= 130; n++) same(`${'(a NOT b) AND ('.repeat(n)}c${')'.repeat(n)}`);
    expect(fts5(`${'('.repeat(101)}a${')'.repeat(101)}`)).toBe('parser stack overflow');
    expect(fts5(`a${' NOT b'.repeat(257)}`)).toBe('fts5 expression tree is too large (maximum depth 256)');
  });

  const PIECES = ['a', 'b', 'ab*', '""', '"a b"', '€', 'AND', 'OR', 'NOT', '(', ')', '*', '+', ':', '^', '-', '{', '}', ',', 'NEAR', 'title', '5'];

  it('every query of up to three pieces, with and without spaces between them, as FTS5', () => {
    const queries = new Set<string>();
    const add = (parts: string[]) => [' ', ''].forEach((sep) => queries.add(parts.join(sep)));
    for (const x of PIECES) {
      add([x]);
      for (const y of PIECES) {
        add([x, y]);
        for (const z of PIECES) add([x, y, z]);
      }
    }
    for (const query of queries) same(query);
  });

  it('random queries of up to 16 pieces, as FTS5', () => {
    const pieces = [...PIECES, 'c', 'b*', '"" + a', 'a + b', 'x', 'é', '"a""b"', '\t'];
    let seed = 11;
    const random = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
    for (let i = 0; i < 20_000; i++) {
      const parts = Array.from({ length: 1 + random(16) }, () => pieces[random(pieces.length)]!);
      same(parts.join(random(4) === 0 ? '' : ' '));
    }
  });
});

describe('a refused query in tenders\' words: one line naming what to quote', () => {
  it.each([
    ['T-0003758', "'T-0003758' is a tender id, not words: see it with 'tenders show T-0003758', or search for it as text in double quotes: '\"T-0003758\"'"],
    ['cleaning foo-bar', `full-text query 'cleaning foo-bar': put foo-bar in double quotes (a word with other characters than letters and digits is a phrase): 'cleaning "foo-bar"'`],
    ["(o'brien OR x) e.g.", `full-text query '(o'brien OR x) e.g.': put o'brien, e.g. in double quotes (a word with other characters than letters and digits is a phrase): '("o'brien" OR x) "e.g."'`],
    ['T-0003758 school', `full-text query 'T-0003758 school': put T-0003758 in double quotes (a word with other characters than letters and digits is a phrase): '"T-0003758" school'; to see tender T-0003758: tenders show T-0003758`],
  ])('%s', (query, message) => {
    expect(fts5(query)).toEqual(expect.any(String)); // FTS5 refuses it too
    expect(() => parseFts5(query)).toThrow(new UsageError(message));
    expect(ftsError(query, 'no such column: 0003758').message).toBe(message);
  });

  it('a refusal with nothing to quote keeps the engine\'s reason and the rule', () => {
    expect(() => parseFts5('hospital (')).toThrow(/^full-text query 'hospital \(' is not valid \(syntax error near ""\): words must all match/);
  });
});
