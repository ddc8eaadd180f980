/**
 * SQLite FTS5's `unicode61 remove_diacritics 2` tokenizer, the SQLite copy's
 * (src/store/sqlite-schema.ts), in JS: the PostgreSQL copy cuts and folds the
 * words of a text as it does, code point by code point, from the table asked of
 * SQLite itself (scripts/unicode61-table.js; test/store/unicode61.test.ts checks
 * it against SQLite). A token starts at a token character (a letter, a digit or
 * a private-use character by SQLite's own Unicode tables, in which code points
 * Unicode has not assigned count as letters), goes on over token characters and
 * the combining accents SQLite calls diacritics (25 of U+0300 to U+0331), and
 * ends at anything else; each of its characters becomes one: lower case, the
 * accents of Latin letters removed, those combining accents dropped. So
 * `Θεσσαλονίκης` is `θεσσαλονίκησ` (Greek accents stay, a final sigma is a
 * sigma), `가` stays one syllable, `e\u0301te\u0301` is `ete`, and a combining
 * mark SQLite does not list (U+0342, Devanagari's vowel signs) ends a token as
 * a space would.
 */

import { RUNS } from './unicode61-table.js';

/** What a code point is to unicode61: 0, not in a token; a token character; or a mark that only goes on a token. */
const TOKEN = 1;
const MARK = 2;

/** A run of the table above the BMP: its first code point, kind, and fold (the code point plus `value`, or `value` when `constant`). */
interface Run {
  first: number;
  kind: number;
  value: number;
  constant: boolean;
}

/** Kind and fold of each code point of the BMP, and the runs above it (few texts go there). */
interface Table {
  kind: Uint8Array;
  fold: Uint16Array;
  astral: Run[];
}

let table: Table | undefined;

function load(): Table {
  const kind = new Uint8Array(0x10000);
  const fold = new Uint16Array(0x10000);
  const astral: Run[] = [];
  let first = 0;
  for (const run of RUNS.split(' ')) {
    const m = /^([0-9a-z]+)([STM])(?:([-+=])([0-9a-z]+))?$/.exec(run);
    if (!m) throw new Error(`unicode61 table: bad run '${run}'`);
    const end = first + parseInt(m[1]!, 36);
    const k = 'STM'.indexOf(m[2]!);
    const n = m[4] === undefined ? 0 : parseInt(m[4], 36);
    const constant = m[3] === '=';
    const value = m[3] === '-' ? -n : n;
    const bmpEnd = Math.min(end, 0x10000);
    kind.fill(k, first, bmpEnd);
    if (constant) fold.fill(value, first, bmpEnd);
    else for (let c = first; c < bmpEnd; c++) fold[c] = c + value;
    if (end > 0x10000) astral.push({ first: Math.max(first, 0x10000), kind: k, value, constant });
    first = end;
  }
  if (first !== 0x110000) throw new Error('unicode61 table: it does not cover U+0000 to U+10FFFF');
  return { kind, fold, astral };
}

/** The run above the BMP that holds `cp`. */
function astralRun(astral: Run[], cp: number): Run {
  let lo = 0;
  let hi = astral.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (astral[mid]!.first <= cp) lo = mid;
    else hi = mid - 1;
  }
  return astral[lo]!;
}

/** Words of other scripts, folded: tenders repeat their words, so each is worked out once. */
const folded = new Map<string, string>();
const FOLDED_KEPT = 4096;

function fold(word: string, { fold: bmp, astral }: Table): string {
  let out = folded.get(word);
  if (out === undefined) {
    out = '';
    for (let i = 0; i < word.length; ) {
      const cp = word.codePointAt(i)!;
      let f: number;
      if (cp < 0x10000) {
        f = bmp[cp]!;
      } else {
        const run = astralRun(astral, cp);
        f = run.constant ? run.value : cp + run.value;
      }
      if (f !== 0) out += String.fromCodePoint(f);
      i += cp > 0xffff ? 2 : 1;
    }
    if (folded.size >= FOLDED_KEPT) folded.clear();
    folded.set(word, out);
  }
  return out;
}

/** The tokens of a text as unicode61 (remove_diacritics 2) makes them. */
export function tokens(text: string | null): string[] {
  const out: string[] = [];
  if (!text) return out;
  const t = (table ??= load());
  const { kind, astral } = t;
  // One pass over the characters: a regular expression per text (and per word) was a fifth of a sync into PostgreSQL.
  let start = -1;
  let plain = true;
  for (let i = 0; i <= text.length; ) {
    // A lone surrogate is a separator, as SQLite reads it (U+FFFD): codePointAt gives it as it is, and the table says so.
    const cp = i < text.length ? text.codePointAt(i)! : 32;
    const k = cp < 0x10000 ? kind[cp]! : astralRun(astral, cp).kind;
    if (k === TOKEN || (k === MARK && start >= 0)) {
      if (start < 0) [start, plain] = [i, true];
      if (cp > 0x7f) plain = false;
    } else if (start >= 0) {
      // ASCII letters and digits: lower case is all unicode61 does to them.
      out.push(plain ? text.slice(start, i).toLowerCase() : fold(text.slice(start, i), t));
      start = -1;
    }
    i += cp > 0xffff ? 2 : 1;
  }
  return out;
}
