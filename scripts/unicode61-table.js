#!/usr/bin/env node
// Writes src/store/unicode61-table.ts: what SQLite's FTS5 tokenizer `unicode61 remove_diacritics 2`
// (the SQLite copy's full-text index, src/store/sqlite-schema.ts) does with each code point, asked of
// the SQLite that better-sqlite3 bundles, so that the PostgreSQL copy cuts and folds words as it
// does (src/store/unicode61.ts). Run it when better-sqlite3 brings another SQLite:
// `node scripts/unicode61-table.js`; test/store/unicode61.test.ts fails while the table and that
// SQLite differ.
//
// unicode61 decides per code point (fts5UnicodeTokenize in SQLite's fts5_tokenize.c): a token
// starts at a token character (categories L*, N* and Co by SQLite's own tables), goes on over
// token characters and the few combining marks SQLite calls diacritics (U+0300..U+0331, some),
// and each character in it becomes one folded character (sqlite3Fts5UnicodeFold: lower case, and
// with remove_diacritics 2 the accents of Latin letters removed) or nothing (those marks). So each
// code point is asked twice, in one column as "q" + c + "q" (one token "q" + fold(c) + "q" if c goes
// on a token, else two tokens "q") and in the other as c + "q" (a token starting with fold(c) if c
// starts one, else "q"), many code points to a row, and the answers read back in order from an
// fts5vocab table.
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';

/** What a code point is to unicode61: not in a token, starts and goes on a token, or only goes on one. */
const SEPARATOR = 0;
const TOKEN = 1;
const MARK = 2;
const LAST = 0x10ffff;
const isSurrogate = (c) => c >= 0xd800 && c <= 0xdfff;

const db = new Database(':memory:');
db.exec(`CREATE VIRTUAL TABLE t USING fts5(goes_on, starts, tokenize='unicode61 remove_diacritics 2', columnsize=0);
CREATE VIRTUAL TABLE v USING fts5vocab(t, instance);`);
const version = db.prepare('SELECT sqlite_version()').pluck().get();

const ROW = 4096;
const insert = db.prepare('INSERT INTO t (rowid, goes_on, starts) VALUES (?, ?, ?)');
db.transaction(() => {
  for (let first = 0, row = 0; first <= LAST; first += ROW, row++) {
    const chars = [];
    // A surrogate has no UTF-8: SQLite reads text with one as U+FFFD, a separator. Asked as "x", also a token of "qxq"/"xq".
    for (let c = first; c < first + ROW && c <= LAST; c++) chars.push(isSurrogate(c) ? '\ufffd' : String.fromCodePoint(c));
    insert.run(row, chars.map((s) => `q${s}q`).join(' '), chars.map((s) => `${s}q`).join(' '));
  }
})();

/** Each row's tokens of each column, in order. */
const tokens = new Map();
for (const [row, column, offset, term] of db.prepare('SELECT doc, col, offset, term FROM v').raw().iterate()) {
  let columns = tokens.get(row);
  if (!columns) tokens.set(row, (columns = { goes_on: [], starts: [] }));
  columns[column][offset] = term;
}

const kind = new Uint8Array(LAST + 1);
const fold = new Uint32Array(LAST + 1);
for (let first = 0, row = 0; first <= LAST; first += ROW, row++) {
  const { goes_on: a, starts: b } = tokens.get(row);
  let i = 0;
  let j = 0;
  for (let c = first; c < first + ROW && c <= LAST; c++) {
    const inner = a[i++];
    let folded = '';
    let goesOn = true;
    if (inner === 'q') {
      if (a[i++] !== 'q') throw new Error(`U+${c.toString(16)}: "q${String.fromCodePoint(c)}q" gave neither one token nor two`);
      goesOn = false;
    } else if (inner.length >= 2 && inner.startsWith('q') && inner.endsWith('q')) {
      folded = inner.slice(1, -1);
    } else {
      throw new Error(`U+${c.toString(16)}: unexpected token ${JSON.stringify(inner)}`);
    }
    const lead = b[j++];
    const starts = lead !== 'q';
    if (starts && lead !== `${folded}q`) throw new Error(`U+${c.toString(16)}: starts "${lead}" but goes on as "${folded}"`);
    if (starts && !goesOn) throw new Error(`U+${c.toString(16)}: starts a token but does not go on one`);
    if (starts && folded === '') throw new Error(`U+${c.toString(16)}: starts a token of nothing`);
    if ([...folded].length > 1) throw new Error(`U+${c.toString(16)}: folds to more than one character`);
    kind[c] = starts ? TOKEN : goesOn ? MARK : SEPARATOR;
    fold[c] = goesOn ? (folded === '' ? 0 : folded.codePointAt(0)) : c;
    if (c < 0x10000 && fold[c] > 0xffff) throw new Error(`U+${c.toString(16)}: folds out of the BMP`);
  }
  if (i !== a.length || j !== b.length) throw new Error(`row ${row}: tokens left over`);
}

// Runs of code points of one kind whose folds are the code point plus one offset, or one character.
const runs = [];
for (let c = 0; c <= LAST; ) {
  const k = kind[c];
  const same = (d) => kind[d] === k && (k === SEPARATOR || fold[d] - d === fold[c] - c);
  const one = (d) => kind[d] === k && k !== SEPARATOR && fold[d] === fold[c];
  let end = c + 1;
  const constant = end <= LAST && !same(end) && one(end);
  while (end <= LAST && (constant ? one(end) : same(end))) end++;
  const length = (end - c).toString(36);
  const letter = 'STM'[k];
  if (constant) runs.push(`${length}${letter}=${fold[c].toString(36)}`);
  else if (k === SEPARATOR || fold[c] === c) runs.push(`${length}${letter}`);
  else runs.push(`${length}${letter}${fold[c] > c ? '+' : '-'}${Math.abs(fold[c] - c).toString(36)}`);
  c = end;
}

const lines = [];
let line = '';
for (const run of runs) {
  if (line.length + run.length + 1 > 96) lines.push(line), (line = '');
  line += `${line ? ' ' : ''}${run}`;
}
lines.push(line);

const out = `// Made by \`node scripts/unicode61-table.js\` from SQLite ${version} (better-sqlite3's): do not edit.

/** The SQLite whose unicode61 tokenizer the table was asked of. */
export const SQLITE_VERSION = '${version}';

/**
 * What unicode61 (remove_diacritics 2) does with each code point, U+0000 to U+10FFFF, as runs
 * separated by spaces: the run's length in base 36; S (a separator), T (a token character: starts a
 * token and goes on one) or M (a mark that only goes on a token); then how each of its characters
 * folds: nothing written (itself), +N or -N (itself plus or minus N, base 36) or =N (the
 * character N; =0 for nothing: the mark is dropped). ${runs.length} runs.
 */
export const RUNS = [
${lines.map((l) => `  '${l}',`).join('\n')}
].join(' ');
`;
writeFileSync(new URL('../src/store/unicode61-table.ts', import.meta.url), out);
console.log(`src/store/unicode61-table.ts: ${runs.length} runs, SQLite ${version}`);
