import { stripVTControlCharacters } from 'node:util';

/**
 * What can drive or deceive a terminal, defined once for every output: C0
 * controls (ESC starts escape sequences, BEL, CR overwrites a line), DEL, C1
 * controls (U+009B is a one-character CSI), and the bidirectional marks and
 * overrides that reorder what is shown.
 */
const CONTROL = '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
const CONTROL_RUNS = new RegExp(`[${CONTROL}]+`, 'g');
const ANY_CONTROL = new RegExp(`[${CONTROL}]`, 'g');
/** The same but for TAB and LF: line breaks and tabs lay CSV out; they cannot drive anything. */
const CONTROL_BUT_LAYOUT = new RegExp(`[${CONTROL.replace('\\u0000-\\u001f', '\\u0000-\\u0008\\u000b-\\u001f')}]`, 'g');
/** What JSON.stringify leaves unescaped (it escapes C0 itself). */
const CONTROL_PAST_JSON = new RegExp(`[${CONTROL.replace('\\u0000-\\u001f', '')}]`, 'g');

/**
 * What a document for other programs (XML 1.0, iCalendar TEXT) must not
 * carry: C0 controls but tab, LF and CR (the formats' own layout, which they
 * escape), DEL and C1 controls (legal in XML, but readers mangle them:
 * feedparser reads U+009B as cp1252's "›"), the noncharacters U+FFFE and
 * U+FFFF, and lone surrogates (no UTF-8 holds them).
 */
const ILLEGAL_IN_DOCUMENTS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `\n`, `\x1b`, `\u202e`: the character spelled out as in a JavaScript string. */
function spell(char: string): string {
  const code = char.charCodeAt(0);
  return SHORT[char] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
}

/** The JSON escape of the character: the text still parses to the same value. */
const jsonEscape = (char: string): string => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Text from the service made safe and single-line for a terminal table cell: sequences removed, controls as spaces. */
export function sanitizeForTerminal(text: string): string {
  return stripVTControlCharacters(text).replace(CONTROL_RUNS, ' ').trim();
}

/**
 * A line for stderr: every control character spelled out (`\x1b[31m`, `\n`),
 * so text from the service shows what it is, cannot drive the terminal and
 * cannot break the one-line rule of messages.
 */
export function escapeControls(text: string): string {
  return text.replace(ANY_CONTROL, spell);
}

/**
 * Formatted data (CSV, NDJSON, JSON) on its way to a terminal. CSV keeps its
 * line breaks and tabs and spells out the rest; JSON gets JSON escapes for
 * what JSON.stringify leaves raw (DEL, C1, bidi), so it still parses to the
 * service's exact values.
 */
export function neutralizeForTerminal(text: string, json: boolean): string {
  return json ? text.replace(CONTROL_PAST_JSON, jsonEscape) : text.replace(CONTROL_BUT_LAYOUT, spell);
}

/** Text for an Atom feed or a calendar: each character ILLEGAL_IN_DOCUMENTS names replaced by `by` ('' drops it). */
export function replaceIllegalChars(text: string, by: string): string {
  return text.replace(ILLEGAL_IN_DOCUMENTS, by);
}
