/**
 * Full-text search in PostgreSQL with SQLite's answers: the words of title and
 * buyer name are cut as SQLite's `unicode61 remove_diacritics 2` tokenizer cuts
 * them (letters and digits, lower case, accents removed) into a tsvector, and
 * an FTS5 query (words, "phrases", prefix*, AND, OR, NOT, parentheses) becomes
 * the tsquery that matches the same tenders. Refused as FTS5 refuses.
 */

import { ftsError } from './rules.js';
import { utf8Longer } from './utf8.js';

/** The tokens of a text as unicode61 (remove_diacritics 2) makes them: runs of letters, digits and private-use characters, lower case, accents removed. */
export function tokens(text: string | null): string[] {
  const out: string[] = [];
  if (!text) return out;
  // One pass over the characters: a regular expression per text (and per word) was a fifth of a sync into PostgreSQL.
  let start = -1;
  let plain = true;
  for (let i = 0; i <= text.length; ) {
    const cp = i < text.length ? text.codePointAt(i)! : 32;
    if (isWordChar(cp)) {
      if (start < 0) [start, plain] = [i, true];
      if (cp > 0x7f) plain = false;
    } else if (start >= 0) {
      const token = plain ? text.slice(start, i).toLowerCase() : fold(text.slice(start, i));
      if (token) out.push(token);
      start = -1;
    }
    i += cp > 0xffff ? 2 : 1;
  }
  return out;
}

const WORD_CHAR = /^[\p{L}\p{N}\p{Co}]$/u;
/** Non-ASCII characters met, and whether each is a word character. */
const wordChars = new Map<number, boolean>();

function isWordChar(cp: number): boolean {
  if (cp <= 0x7f) return (cp >= 0x61 && cp <= 0x7a) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x30 && cp <= 0x39);
  let word = wordChars.get(cp);
  if (word === undefined) wordChars.set(cp, (word = WORD_CHAR.test(String.fromCodePoint(cp))));
  return word;
}

/** Words of other scripts, lower case without their accents: tenders repeat their words, so each is worked out once. */
const folded = new Map<string, string>();
const FOLDED_KEPT = 4096;

function fold(word: string): string {
  let plain = folded.get(word);
  if (plain === undefined) {
    plain = word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
    if (folded.size >= FOLDED_KEPT) folded.clear();
    folded.set(word, plain);
  }
  return plain;
}

/** PostgreSQL's longest word in a tsvector, and the most bytes a tsvector's words and their positions take. */
const LEXEME_BYTES = 2046;
const TSVECTOR_BYTES = (1 << 20) - 1;
/** What one word adds to a tsvector at most, beyond its UTF-8 bytes: an alignment byte, its count of positions and a position. */
const WORD_OVERHEAD = 5;
/**
 * The most a UTF-16 unit of a field adds, generously: folded (decomposed, lower case) it may
 * make several characters of 3 bytes (a Hangul syllable makes three), and it may be a word.
 */
const UNIT_BYTES = 24 + WORD_OVERHEAD;

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
  for (const field of [title, buyerName]) {
    // Words are measured only in a field whose bound could pass the room left (titles of over 30 000 characters).
    const bound = (field?.length ?? 0) * UNIT_BYTES;
    const measured = bound > room;
    if (!measured) room -= bound;
    for (const token of tokens(field)) {
      position++;
      if (tooLong(token)) continue;
      if (measured && (room -= Buffer.byteLength(token) + WORD_OVERHEAD) < 0) return text;
      // A token holds letters and digits only: nothing in it to quote. One string, not parts joined: a quarter less time.
      text += `${text ? " '" : "'"}${token}':${Math.min(position, 16383)}`;
    }
    position++;
  }
  return text;
}

type Node = { phrase: string[]; prefix: boolean } | { op: '&' | '|' | 'not'; left: Node; right: Node };

/** The tsquery of an FTS5 query; a query FTS5 refuses is a UsageError with the rule. A query of no words matches nothing: null. */
export function tsquery(words: string): string | null {
  const parser = new Parser(words);
  const node = parser.parse();
  return render(node);
}

function render(node: Node | null): string | null {
  if (node === null) return null;
  if ('phrase' in node) {
    // A word too long for a tsvector is in none (see tsvectorText).
    if (node.phrase.length === 0 || node.phrase.some(tooLong)) return null;
    const last = node.phrase.length - 1;
    return `(${node.phrase.map((t, i) => `${quote(t)}${node.prefix && i === last ? ':*' : ''}`).join(' <-> ')})`;
  }
  const left = render(node.left);
  const right = render(node.right);
  // An empty phrase (a bareword of no letters) matches nothing, as in FTS5.
  if (node.op === '|') return left === null ? right : right === null ? left : `(${left} | ${right})`;
  if (left === null) return null;
  if (node.op === 'not') return right === null ? left : `(${left} & !${right})`;
  return right === null ? null : `(${left} & ${right})`;
}

function quote(token: string): string {
  return `'${token.replace(/['\\]/g, (c) => c + c)}'`;
}

type Token = { kind: 'string'; text: string; quoted: boolean } | { kind: 'AND' | 'OR' | 'NOT' | '(' | ')' | '*' | '+' };

class Parser {
  readonly #tokens: Token[];
  #at = 0;

  constructor(private readonly words: string) {
    this.#tokens = this.#lex(words);
  }

  parse(): Node | null {
    if (this.#tokens.length === 0) return null;
    const node = this.#or();
    if (this.#at < this.#tokens.length) this.#fail(this.#tokens[this.#at]!);
    return node;
  }

  // Precedence as FTS5's grammar: OR < AND < NOT < adjacent phrases (an implicit AND).
  #or(): Node {
    let node = this.#and();
    while (this.#peek('OR')) {
      this.#at++;
      node = { op: '|', left: node, right: this.#and() };
    }
    return node;
  }

  #and(): Node {
    let node = this.#not();
    while (this.#peek('AND')) {
      this.#at++;
      node = { op: '&', left: node, right: this.#not() };
    }
    return node;
  }

  #not(): Node {
    let node = this.#list();
    while (this.#peek('NOT')) {
      this.#at++;
      node = { op: 'not', left: node, right: this.#list() };
    }
    return node;
  }

  #list(): Node {
    let node = this.#primary();
    while (this.#peek('string') || this.#peek('(')) node = { op: '&', left: node, right: this.#primary() };
    return node;
  }

  #primary(): Node {
    const token = this.#tokens[this.#at++];
    if (!token) throw ftsError(this.words, 'syntax error near end of query');
    if (token.kind === '(') {
      const node = this.#or();
      if (!this.#peek(')')) this.#fail(this.#tokens[this.#at]);
      this.#at++;
      return node;
    }
    if (token.kind !== 'string') this.#fail(token);
    const phrase = [...tokens(token.text)];
    let prefix = false;
    for (;;) {
      if (this.#peek('*')) {
        this.#at++;
        prefix = true;
        if (!this.#peek('+')) break;
      }
      if (!this.#peek('+')) break;
      this.#at++;
      const next = this.#tokens[this.#at++];
      if (next?.kind !== 'string') this.#fail(next);
      phrase.push(...tokens(next.text));
      prefix = false;
    }
    return { phrase, prefix };
  }

  #peek(kind: Token['kind']): boolean {
    return this.#tokens[this.#at]?.kind === kind;
  }

  #fail(token: Token | undefined): never {
    const near = token === undefined ? 'end of query' : `"${token.kind === 'string' ? token.text : token.kind}"`;
    throw ftsError(this.words, `syntax error near ${near}`);
  }

  #lex(words: string): Token[] {
    const out: Token[] = [];
    let i = 0;
    while (i < words.length) {
      const c = words[i]!;
      if (/\s/.test(c)) {
        i++;
      } else if (c === '"') {
        let text = '';
        i++;
        for (;;) {
          if (i >= words.length) throw ftsError(words, 'unterminated string');
          if (words[i] === '"') {
            if (words[i + 1] !== '"') break;
            i++;
          }
          text += words[i++];
        }
        i++;
        out.push({ kind: 'string', text, quoted: true });
      } else if ('()*+'.includes(c)) {
        out.push({ kind: c as '(' });
        i++;
      } else if (/[A-Za-z0-9_\u001a]/.test(c) || c.codePointAt(0)! > 127) {
        const start = i;
        while (i < words.length && (/[A-Za-z0-9_\u001a]/.test(words[i]!) || words.codePointAt(i)! > 127)) i++;
        const text = words.slice(start, i);
        out.push(text === 'AND' || text === 'OR' || text === 'NOT' ? { kind: text } : { kind: 'string', text, quoted: false });
      } else {
        throw ftsError(words, `syntax error near "${c}"`);
      }
    }
    return out;
  }
}
