import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SQLITE_VERSION } from '../../src/store/unicode61-table.js';
import { tokens } from '../../src/store/unicode61.js';

/**
 * The PostgreSQL copy's words (src/store/unicode61.ts) against SQLite's own: the
 * FTS5 tokenizer of the SQLite copy, `unicode61 remove_diacritics 2`, asked
 * through an fts5vocab table of every token of each text, in order.
 */
const db = new Database(':memory:');
db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize='unicode61 remove_diacritics 2', columnsize=0);
CREATE VIRTUAL TABLE v USING fts5vocab(t, instance);`);
afterAll(() => db.close());

/** SQLite's tokens of each text. */
function sqliteTokens(texts: readonly string[]): string[][] {
  db.exec('DELETE FROM t');
  const insert = db.prepare('INSERT INTO t (rowid, x) VALUES (?, ?)');
  db.transaction(() => texts.forEach((text, i) => insert.run(i + 1, text)))();
  const out = texts.map(() => [] as string[]);
  for (const [doc, offset, term] of db.prepare('SELECT doc, offset, term FROM v').raw().iterate() as Iterable<[number, number, string]>) {
    out[doc - 1]![offset] = term;
  }
  return out;
}

/** The texts that show what unicode61 does with each of `codePoints`: between two letters, and after a space. */
function probes(codePoints: Iterable<number>): string[] {
  const out: string[] = [];
  let text = '';
  let n = 0;
  for (const c of codePoints) {
    const s = c >= 0xd800 && c <= 0xdfff ? '\ufffd' : String.fromCodePoint(c);
    text += `q${s}q ${s}q `;
    if (++n === 2048) [out[out.length], text, n] = [text, '', 0];
  }
  if (text) out.push(text);
  return out;
}

function* range(from: number, to: number, step = 1): Generator<number> {
  for (let c = from; c <= to; c += step) yield c;
}

describe(`unicode61 remove_diacritics 2, as SQLite ${SQLITE_VERSION} cuts and folds words`, () => {
  it('every code point of the BMP and of plane 1, and one in 31 beyond, as SQLite: starts a token, goes on one, folds to the same', () => {
    const texts = probes([...range(0, 0x1ffff), ...range(0x20000, 0x10ffff, 31), 0x10ffff]);
    const theirs = sqliteTokens(texts);
    texts.forEach((text, i) => {
      const ours = tokens(text);
      if (ours.join(' ') !== theirs[i]!.join(' ')) {
        // The first code point that differs, to say which.
        const words = text.trim().split(' ');
        for (let w = 0; w < words.length; w += 2) {
          const pair = `${words[w]} ${words[w + 1]}`;
          const [one] = sqliteTokens([pair]);
          expect(tokens(pair), `U+${words[w + 1]!.codePointAt(0)!.toString(16)} (node scripts/unicode61-table.js makes the table again)`).toEqual(one);
        }
      }
      expect(ours).toEqual(theirs[i]);
    });
  });

  const cases: [string, string, string[]][] = [
    ['Greek keeps its accents (tonos), and a final sigma is a sigma', 'Θεσσαλονίκης θεσσαλονικης ΆΈΉ', ['θεσσαλονίκησ', 'θεσσαλονικησ', 'άέή']],
    ['a Greek title pasted whole: the dash is no word, the keraia ends one', 'Αναβάθμιση οδικού δικτύου Θεσσαλονίκης — φάση Β΄', ['αναβάθμιση', 'οδικού', 'δικτύου', 'θεσσαλονίκησ', 'φάση', 'β']],
    ['Latin accents go, letters of their own (ß, æ, ø, ł, ﬁ) stay, upper case is lower', 'École ÀÉÎÕÜ ﬁne ß ẞ Ærø Łódź', ['ecole', 'aeiou', 'ﬁne', 'ß', 'ß', 'ærø', 'łodz']],
    ['Cyrillic й, ё, ї and Й keep their marks', 'й ё ї ЙЁЇ', ['й', 'ё', 'ї', 'йёї']],
    ['long s and curly beta fold to s and β', 'ſ ϐ ϑ', ['s', 'β', 'θ']],
    ['Cherokee is not folded (SQLite has no case for it)', 'Ꭰꭰ ᏸ', ['Ꭰꭰ', 'ᏸ']],
    ['Hangul syllables stay whole', '가나다 한국', ['가나다', '한국']],
    ['decomposed accents U+0300..U+0331 are dropped within a word', 'e\u0301te\u0301 \u0301x', ['ete', 'x']],
    ['other combining marks end a word: U+0342, Devanagari vowel signs', 'α\u0342β हिन्दी', ['α', 'β', 'ह', 'न', 'द']],
    ['symbols, emoji, dashes and spaces of other scripts are no words', 'a🚑b €5 x—y n\u00a0m p\u3000q _', ['a', 'b', '5', 'x', 'y', 'n', 'm', 'p', 'q']],
    ['Deseret, mathematical letters and digits beyond the BMP', '𐐀𐐨 𝐀𝟎 𠀀', ['𐐨𐐨', '𝐀𝟎', '𠀀']],
    ['a lone surrogate is a separator, as SQLite reads it (U+FFFD)', 'a\ud800b c\udc00', ['a', 'b', 'c']],
    ['fullwidth letters and roman numerals fold to their small forms', 'ＡＢＣ Ⅻ', ['ａｂｃ', 'ⅻ']],
  ];
  for (const [what, text, expected] of cases) {
    it(what, () => {
      expect(sqliteTokens([text])[0]).toEqual(expected);
      expect(tokens(text)).toEqual(expected);
    });
  }

  it('random texts of letters, marks, digits and separators of many scripts, as SQLite', () => {
    const pool = [...'aZ09_-\'" .,;\t\nÉéßſϐςΣΆάίЙйЁёЇї가가\u0301\u0308\u0327\u0342\u093f\u094d€—🚑👍🏽\u00a0\u3000Ꭰꭰ𐐀𝐀ﬁ東京\u1100\u1161\u200d\ufe0f'];
    let seed = 7;
    const random = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
    const texts = Array.from({ length: 2000 }, () => Array.from({ length: 1 + random(24) }, () => pool[random(pool.length)]).join(''));
    const theirs = sqliteTokens(texts);
    texts.forEach((text, i) => expect(tokens(text), JSON.stringify(text)).toEqual(theirs[i]));
  });
});
