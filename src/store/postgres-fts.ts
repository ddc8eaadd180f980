/**
 * Full-text search in PostgreSQL with SQLite's answers: the words of title and
 * buyer name are cut as SQLite's `unicode61 remove_diacritics 2` tokenizer cuts
 * them (src/store/unicode61.ts, a port made from SQLite's own answers) into a
 * tsvector, and an FTS5 query, read as FTS5 reads it (src/store/fts5-query.ts:
 * words, "phrases", prefix*, AND, OR, NOT, parentheses), becomes the tsquery
 * that matches the same tenders. Refused as FTS5 refuses, with its reason;
 * NEAR(...), column filters and ^ are FTS5's alone, refused here.
 */

import { parseFts5, type Expr, type Term } from './fts5-query.js';
import { ftsError } from './rules.js';
import { tokens } from './unicode61.js';
import { utf8Longer } from './utf8.js';


/** PostgreSQL's longest word in a tsvector, and the most bytes a tsvector's words and their positions take. */
const LEXEME_BYTES = 2046;
const TSVECTOR_BYTES = (1 << 20) - 1;
/** What one word adds to a tsvector at most, beyond its UTF-8 bytes: an alignment byte, its count of positions and a position. */
const WORD_OVERHEAD = 5;
/**
 * The most a UTF-16 unit of a field adds: folded, a character stays one character (unicode61
 * folds code point by code point), of at most 3 bytes for a unit of the BMP (4 for a pair of
 * units), and it may be a word.
 */
const UNIT_BYTES = 3 + WORD_OVERHEAD;

function tooLong(word: string): boolean {
  return utf8Longer(word, LEXEME_BYTES);
}

/**
 * The tsvector text of a tender: title's words, then (a position apart, so no
 * phrase spans both) the buyer's. A word PostgreSQL cannot hold (longer than
 * 2046 bytes) is left out, and so are the words past the tsvector's megabyte:
 * the tender is kept and found by its other words, where the tsvector's own
 * limits would fail the run.
 */
export function tsvectorText(title: string | null, buyerName: string | null): string {
  let text = '';
  let position = 0;
  let room = TSVECTOR_BYTES;
  for (const [field, weight] of [[title, ''], [buyerName, 'B']] as const) {
    // The buyer's words weigh B (the title's the default, D): `--buyer-name` matches them alone (tsquery's :B).
    // Words are measured only in a field whose bound could pass the room left (titles of over 30 000 characters).
    const bound = (field?.length ?? 0) * UNIT_BYTES;
    const measured = bound > room;
    if (!measured) room -= bound;
    for (const token of tokens(field)) {
      position++;
      if (tooLong(token)) continue;
      if (measured && (room -= Buffer.byteLength(token) + WORD_OVERHEAD) < 0) return text;
      // A token holds letters and digits only: nothing in it to quote. One string, not parts joined: a quarter less time.
      text += `${text ? " '" : "'"}${token}':${Math.min(position, 16383)}${weight}`;
    }
    position++;
  }
  return text;
}

/**
 * The tsquery of an FTS5 query; a query FTS5 refuses is a UsageError with its reason, and so is
 * one that uses what only FTS5 has. A query that matches nothing (a phrase of no words, `*reads`): null.
 */
export function tsquery(words: string, weight?: 'B'): string | null {
  const parsed = parseFts5(words);
  if (parsed.special) return null;
  const only = parsed.near ? 'NEAR(...) works' : parsed.columns ? 'a column filter, title:word, works' : parsed.caret ? '^word, a column\'s first word, works' : undefined;
  if (only) throw ftsError(words, `${only} in a SQLite copy only`);
  return render(parsed.expr, weight ?? '');
}

/** The tsquery of an expression, null for one that matches nothing, as FTS5 evaluates it. */
function render(expr: Expr, weight: string): string | null {
  switch (expr.type) {
    case 'eof':
      return null;
    case 'string':
      return phrase(expr.phrases[0]!, weight);
    case 'and': {
      const parts = expr.children.map((child) => render(child, weight));
      return parts.includes(null) ? null : balanced(parts as string[], '&');
    }
    case 'or': {
      const parts = expr.children.map((child) => render(child, weight)).filter((p) => p !== null);
      return parts.length === 0 ? null : balanced(parts, '|');
    }
    case 'not': {
      const [left, right] = expr.children.map((child) => render(child, weight));
      return left == null ? null : right == null ? left : `(${left} & !${right})`;
    }
  }
}

/** A phrase's words in order; `weight` (B) matches them in the buyer's name alone. */
function phrase(terms: Term[], weight: string): string | null {
  // A word too long for a tsvector is in none (see tsvectorText).
  if (terms.some((t) => tooLong(t.token))) return null;
  return `(${terms.map((t) => `${quote(t.token)}${t.prefix ? `:*${weight}` : weight ? `:${weight}` : ''}`).join(' <-> ')})`;
}

/** Operands joined by `op` as a balanced tree: the server walks a query recursively, and a query may have thousands of words. */
function balanced(parts: string[], op: '&' | '|'): string {
  if (parts.length === 1) return parts[0]!;
  const half = parts.length >> 1;
  return `(${balanced(parts.slice(0, half), op)} ${op} ${balanced(parts.slice(half), op)})`;
}

function quote(token: string): string {
  return `'${token.replace(/['\\]/g, (c) => c + c)}'`;
}
