/**
 * SQLite FTS5's query parser (fts5_expr.c and the Lemon parser of fts5parse.y,
 * SQLite 3.53), in JS: a query is read, refused and built into an expression as
 * FTS5 does it, so the PostgreSQL copy refuses what the SQLite copy refuses, with
 * its words, and answers the rest as it does (src/store/postgres-fts.ts).
 * test/store/fts5-query.test.ts holds its answers to FTS5's own.
 *
 * The grammar (https://sqlite.org/fts5.html, section 3):
 *
 *   expr      := expr AND expr | expr OR expr | expr NOT expr   (NOT binds tightest, then AND, then OR)
 *              | ( expr ) | colset : ( expr ) | exprlist
 *   exprlist  := cnearset | exprlist cnearset                    (an implicit AND)
 *   cnearset  := nearset | colset : nearset
 *   nearset   := phrase | ^ phrase | NEAR ( phrase... [, N] )
 *   phrase    := STRING [*] | phrase + STRING [*]
 *   colset    := STRING | - STRING | { STRING... } | - { STRING... }
 *
 * So an implicit AND joins phrases only: `(a OR b) c`, `(a) b` and `x (y)` are
 * refused. A STRING is a bareword (ASCII letters, digits, `_`, U+001A and every
 * non-ASCII character) or a "quoted string"; its words are unicode61's
 * (src/store/unicode61.ts). One that holds none (`""`, `—`, `€`, an emoji) is an
 * empty phrase, which matches nothing: an implicit AND leaves it out (`school €`
 * is `school`), as long as something else is left; AND, OR and NOT keep it (`a
 * AND ""` matches nothing, `a OR ""` is `a`, `a NOT ""` is `a`).
 */

import { UsageError } from '../errors.js';
import { tokens } from './unicode61.js';
import { ACCEPT, ACTION, DEFAULT, LOOKAHEAD, MAX_SHIFT, MAX_SHIFTREDUCE, MIN_REDUCE, MIN_SHIFTREDUCE, REDUCE_OFFSET, RULE_LHS, RULE_RHS, SHIFT_OFFSET } from './fts5-tables.js';

/** One word of a phrase; `prefix`: it matches the words that start so. */
export interface Term {
  token: string;
  prefix: boolean;
}

/**
 * FTS5's expression: a phrase (`string`, or a NEAR group of several), `eof`, a
 * phrase of no words (it matches nothing), and AND, OR (any number of children,
 * as FTS5 flattens them) and NOT (two).
 */
export type Expr =
  | { type: 'string' | 'eof'; phrases: Term[][]; height: 0 }
  | { type: 'and' | 'or' | 'not'; children: Expr[]; height: number };

/** What FTS5 does with a query: `special` for a query of the form `*reads`, which matches no row of a table. */
export type Parsed =
  | { special: true }
  | { special: false; expr: Expr; near: boolean; columns: boolean; caret: boolean };

/** The columns of the SQLite copy's full-text table (src/store/sqlite-schema.ts), for `title:word`. */
const COLUMNS = ['title', 'buyer_name'];

/** FTS5's deepest expression (SQLITE_FTS5_MAX_EXPR_DEPTH) and its parser's stack (fts5YYSTACKDEPTH). */
const MAX_DEPTH = 256;
const STACK_DEPTH = 100;

// Token codes of fts5parse.y (FTS5_EOF ... FTS5_STAR); FTS5_TERM (4) is never read.
const EOF = 0;
const OR = 1;
const AND = 2;
const NOT = 3;
const COLON = 5;
const MINUS = 6;
const LCP = 7;
const RCP = 8;
const STRING = 9;
const LP = 10;
const RP = 11;
const CARET = 12;
const COMMA = 13;
const PLUS = 14;
const STAR = 15;

const PUNCTUATION: Record<string, number> = { '(': LP, ')': RP, '{': LCP, '}': RCP, ':': COLON, ',': COMMA, '+': PLUS, '*': STAR, '-': MINUS, '^': CARET };

/** A token of the query: its code and its text as the query has it (a quoted string with its quotes). */
interface Token {
  code: number;
  text: string;
}

/** An error FTS5 would report; the query's whole message is made by the caller. */
class Refused extends Error {}

/** The characters of a bareword (sqlite3Fts5IsBareword): ASCII letters and digits, `_`, U+001A and every non-ASCII character. */
function isBareword(code: number): boolean {
  return code >= 0x80 || (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f || code === 0x1a;
}

/** fts5ExprGetToken: the token at `at` of `query`, and where the next starts. */
function nextToken(query: string, at: number): [Token, number] {
  // FTS5 skips spaces, tabs and line ends; any other control character is an error.
  while (at < query.length && ' \t\n\r'.includes(query[at]!)) at++;
  if (at >= query.length) return [{ code: EOF, text: '' }, at];
  const c = query[at]!;
  const code = PUNCTUATION[c];
  if (code !== undefined) return [{ code, text: c }, at + 1];
  if (c === '"') {
    let end = at + 1;
    for (;;) {
      if (end >= query.length) throw new Refused('unterminated string');
      if (query[end] === '"') {
        if (query[end + 1] !== '"') break;
        end++;
      }
      end++;
    }
    return [{ code: STRING, text: query.slice(at, end + 1) }, end + 1];
  }
  if (!isBareword(query.charCodeAt(at))) throw new Refused(`syntax error near "${c}"`);
  let end = at + 1;
  while (end < query.length && isBareword(query.charCodeAt(end))) end++;
  const text = query.slice(at, end);
  return [{ code: text === 'OR' ? OR : text === 'AND' ? AND : text === 'NOT' ? NOT : STRING, text }, end];
}

/** The text of a STRING: a quoted string without its quotes, "" inside it as ". */
function dequote(text: string): string {
  return text.startsWith('"') ? text.slice(1, -1).replace(/""/g, '"') : text;
}

/** The value a symbol of the parser's stack carries. */
type Value = Token | Term[] | Term[][] | Expr | boolean | undefined;

interface Entry {
  state: number;
  value: Value;
}

/** What a query asked of FTS5 beyond words, phrases, AND, OR, NOT and parentheses. */
interface Features {
  near: boolean;
  columns: boolean;
  caret: boolean;
}

/** The parse of one query: Lemon's automaton, with fts5_expr.c's actions. */
class Parse {
  readonly #stack: Entry[] = [{ state: 0, value: undefined }];
  #expr: Expr | undefined;
  readonly features: Features = { near: false, columns: false, caret: false };

  /** sqlite3Fts5Parser: one token; the expression once the end is read. */
  feed(token: Token): Expr | undefined {
    let action = this.#top.state;
    for (;;) {
      action = this.#shiftAction(token.code, action);
      if (action >= MIN_REDUCE) {
        const rule = action - MIN_REDUCE;
        if (RULE_RHS[rule] === 0 && this.#stack.length >= STACK_DEPTH) throw new Refused('parser stack overflow');
        action = this.#reduce(rule);
      } else if (action <= MAX_SHIFTREDUCE) {
        if (this.#stack.length >= STACK_DEPTH) throw new Refused('parser stack overflow');
        this.#stack.push({ state: action > MAX_SHIFT ? action + MIN_REDUCE - MIN_SHIFTREDUCE : action, value: token });
        return undefined;
      } else if (action === ACCEPT) {
        return this.#expr;
      } else {
        throw new Refused(`syntax error near "${token.text}"`);
      }
    }
  }

  get #top(): Entry {
    return this.#stack[this.#stack.length - 1]!;
  }

  #shiftAction(code: number, state: number): number {
    if (state > MAX_SHIFT) return state;
    const i = SHIFT_OFFSET[state]! + code;
    return LOOKAHEAD[i] === code ? ACTION[i]! : DEFAULT[state]!;
  }

  /** fts5yy_reduce: the rule's action on the symbols it takes off the stack, then the goto. */
  #reduce(rule: number): number {
    const n = RULE_RHS[rule]!;
    const rhs = this.#stack.splice(this.#stack.length - n, n).map((e) => e.value);
    const value = this.#action(rule, rhs);
    const state = ACTION[REDUCE_OFFSET[this.#top.state]! + RULE_LHS[rule]!]!;
    this.#stack.push({ state, value });
    return state;
  }

  #action(rule: number, v: Value[]): Value {
    switch (rule) {
      case 0: // input ::= expr
        this.#expr = v[0] as Expr;
        return undefined;
      case 1: // colset ::= MINUS LCP colsetlist RCP
      case 2: // colset ::= LCP colsetlist RCP
        this.features.columns = true;
        return undefined;
      case 3: // colset ::= STRING
      case 4: // colset ::= MINUS STRING
      case 5: // colsetlist ::= colsetlist STRING
      case 6: // colsetlist ::= STRING
        column(v[v.length - 1] as Token);
        this.features.columns = true;
        return undefined;
      case 7: // expr ::= expr AND expr
        return node('and', v[0] as Expr, v[2] as Expr);
      case 8: // expr ::= expr OR expr
        return node('or', v[0] as Expr, v[2] as Expr);
      case 9: // expr ::= expr NOT expr
        return node('not', v[0] as Expr, v[2] as Expr);
      case 10: // expr ::= colset COLON LP expr RP
        return v[3];
      case 11: // expr ::= LP expr RP
        return v[1];
      case 12: // expr ::= exprlist
      case 13: // exprlist ::= cnearset
      case 15: // cnearset ::= nearset (made an expression by nearset's rules)
        return v[0];
      case 14: // exprlist ::= exprlist cnearset
        return implicitAnd(v[0] as Expr, v[1] as Expr);
      case 16: // cnearset ::= colset COLON nearset
        return v[2];
      case 17: // nearset ::= phrase
        return phraseNode([v[0] as Term[]]);
      case 18: // nearset ::= CARET phrase
        this.features.caret = true;
        return phraseNode([v[1] as Term[]]);
      case 19: {
        // nearset ::= STRING LP nearphrases neardist_opt RP
        const [near, , phrases, distance] = v as [Token, Token, Term[][], Token | undefined];
        if (near.text !== 'NEAR') throw new Refused(`syntax error near "${near.text}"`);
        if (distance !== undefined && !/^[0-9]*$/.test(distance.text)) throw new Refused(`expected integer, got "${distance.text}"`);
        this.features.near = true;
        return phraseNode(phrases);
      }
      case 20: // nearphrases ::= phrase
        return nearset([], v[0] as Term[]);
      case 21: // nearphrases ::= nearphrases phrase
        return nearset(v[0] as Term[][], v[1] as Term[]);
      case 22: // neardist_opt ::=
        return undefined;
      case 23: // neardist_opt ::= COMMA STRING
        return v[1];
      case 24: // phrase ::= phrase PLUS STRING star_opt
        return phrase(v[0] as Term[], v[2] as Token, v[3] as boolean);
      case 25: // phrase ::= STRING star_opt
        return phrase([], v[0] as Token, v[1] as boolean);
      case 26: // star_opt ::= STAR
        return true;
      default: // 27: star_opt ::=
        return false;
    }
  }
}

/** sqlite3Fts5ParseColset: a column of the table, by name in any case, or the error. */
function column(token: Token): void {
  const name = dequote(token.text);
  if (!COLUMNS.includes(name.replace(/[A-Z]+/g, (s) => s.toLowerCase()))) throw new Refused(`no such column: ${name}`);
}

/** sqlite3Fts5ParseTerm: the words of a STRING added to a phrase; `prefix` set (or cleared) on the phrase's last word. */
function phrase(terms: Term[], token: Token, prefix: boolean): Term[] {
  const out = [...terms, ...tokens(dequote(token.text)).map((t) => ({ token: t, prefix: false }))];
  if (out.length > 0) out[out.length - 1] = { ...out[out.length - 1]!, prefix };
  return out;
}

/** sqlite3Fts5ParseNearset: an empty phrase beside another in a NEAR group is left out. */
function nearset(phrases: Term[][], next: Term[]): Term[][] {
  if (phrases.length === 0) return [next];
  if (next.length === 0) return phrases;
  if (phrases[phrases.length - 1]!.length === 0) return [...phrases.slice(0, -1), next];
  return [...phrases, next];
}

/** sqlite3Fts5ParseNode for a phrase (or NEAR group): EOF, matching nothing, when a phrase has no words. */
function phraseNode(phrases: Term[][]): Expr {
  return { type: phrases.some((p) => p.length === 0) ? 'eof' : 'string', phrases, height: 0 };
}

/** sqlite3Fts5ParseNode for AND, OR and NOT: an AND of ANDs is one AND (so an OR of ORs), a NOT is not merged. */
function node(type: 'and' | 'or' | 'not', left: Expr, right: Expr): Expr {
  const children: Expr[] = [];
  let height = 0;
  for (const child of [left, right]) {
    const merged = type !== 'not' && child.type === type ? (child as { children: Expr[] }).children : [child];
    for (const c of merged) height = Math.max(height, c.height + 1);
    children.push(...merged);
  }
  if (height > MAX_DEPTH) throw new Refused(`fts5 expression tree is too large (maximum depth ${MAX_DEPTH})`);
  return { type, children, height };
}

/** sqlite3Fts5ParseImplicitAnd: phrases side by side, an empty one left out (unless nothing else is left). */
function implicitAnd(left: Expr, right: Expr): Expr {
  if (right.type === 'eof') return left;
  const last = left.type === 'and' ? left.children.length - 1 : -1;
  const previous = last >= 0 ? (left as { children: Expr[] }).children[last]! : left;
  if (previous.type === 'eof') {
    if (last < 0) return right;
    (left as { children: Expr[] }).children[last] = right;
    return left;
  }
  return node('and', left, right);
}

/**
 * A query as FTS5 reads it: `special` for `*reads` and `*id` (which match no
 * tender); else its expression and what it used of FTS5 beyond words and
 * operators. A query FTS5 refuses is a UsageError with FTS5's reason.
 */
export function parseFts5(words: string): Parsed {
  try {
    return parse(words);
  } catch (err) {
    if (err instanceof Refused) throw new UsageError(ftsMessage(words, err.message));
    throw err;
  }
}

/** FTS5's reason to refuse `words`, in its words (what both engines' messages are made from); undefined when it takes them. */
export function fts5Refusal(words: string): string | undefined {
  try {
    parse(words);
    return undefined;
  } catch (err) {
    if (err instanceof Refused) return err.message;
    throw err;
  }
}

/** The parse of `words`, as FTS5 does it: Refused where FTS5 refuses. */
function parse(words: string): Parsed {
  // FTS5 reads the query as a C string: it ends at a NUL.
  const query = words.includes('\0') ? words.slice(0, words.indexOf('\0')) : words;
  if (query.startsWith('*')) return special(query.slice(1));
  const parser = new Parse();
  for (let at = 0; ; ) {
    const [token, next] = nextToken(query, at);
    at = next;
    const expr = parser.feed(token);
    if (expr) return { special: false, expr, ...parser.features };
    // The end is always read to an expression or an error: feed() throws.
    if (token.code === EOF) throw new Refused('syntax error near ""');
  }
}

const FTS_RULE =
  'words must all match; "a phrase" in double quotes; prefix* matches words that start so; a OR b; a NOT b; ( ) to group; ' +
  'a word with other characters than letters and digits goes in double quotes';

/** A word shaped like a tender's id (T-0003758, the sandbox's and the service's): a reader looking one up. */
const TENDER_ID = /^[A-Za-z]{1,5}-\d{2,}$/;
/** FTS5's operators at a word's edges: `(a`, `-col`, `^a`, `a*`, `b)`. */
const EDGES = /^[(^{+-]+|[)*}]+$/g;

/** A word FTS5 cannot read as one: a character of no bareword and no operator (`e.g.`, `o'brien`), or `-` inside it (`foo-bar`: a column filter). */
function needsQuotes(piece: string): boolean {
  return /[\p{L}\p{N}_]-[\p{L}\p{N}_]/u.test(piece) || [...piece].some((c) => !isBareword(c.codePointAt(0)!) && PUNCTUATION[c] === undefined);
}

/**
 * The one line of a full-text query the engine refused (`reason`, in its words), in tenders' words: a
 * word that must be quoted is named, quoted (`foo-bar`, which FTS5 reads as column `bar`: '"foo-bar"'),
 * an id looked up as words is sent to `tenders show`; else the engine's reason and the rule.
 */
export function ftsMessage(words: string, reason: string): string {
  const pieces = words.trim().split(/\s+/).filter((piece) => piece !== '' && !piece.includes('"'));
  const id = pieces.find((piece) => TENDER_ID.test(piece));
  if (id !== undefined && pieces.length === 1) return `'${id}' is a tender id, not words: see it with 'tenders show ${id}', or search for it as text in double quotes: '"${id}"'`;
  const unquoted = pieces.filter(needsQuotes);
  if (unquoted.length > 0) {
    const quoted = words.replace(/\S+/g, (piece) => (unquoted.includes(piece) ? piece.replace(/^([(^{+-]*)(.*?)([)*}]*)$/, '$1"$2"$3') : piece));
    const also = id !== undefined ? `; to see tender ${id}: tenders show ${id}` : '';
    return `full-text query '${words}': put ${unquoted.map((w) => w.replace(EDGES, '')).join(', ')} in double quotes (a word with other characters than letters and digits is a phrase): '${quoted}'${also}`;
  }
  return `full-text query '${words}' is not valid (${reason}): ${FTS_RULE}`;
}

/** fts5SpecialMatch: `*reads` or `*id` (a counter of the table's, in a row of no tender), else refused. */
function special(rest: string): Parsed {
  const word = rest.replace(/^ +/, '').split(' ')[0]!;
  if (/^(reads|id)$/i.test(word)) return { special: true };
  throw new Refused(`unknown special query: ${word}`);
}
