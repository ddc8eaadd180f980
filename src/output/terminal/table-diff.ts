import { cellFor } from './table-columns.js';
import { sanitizeForTerminal } from './sanitize.js';
import { wrapWords } from './wrap.js';

/** Words of context kept each side of a change when the whole value does not fit on one line. */
const CONTEXT = 3;
const INDENT = '  ';
const RED = ['\x1b[31m', '\x1b[39m'] as const;
const GREEN = ['\x1b[32m', '\x1b[39m'] as const;

/** Which of a change's values a table shows under its row (those named by --columns, or both). */
export interface DiffShown {
  old: boolean;
  new: boolean;
}

/**
 * The lines under a change's row on a terminal, never cut: the values as a
 * word diff when they share words, as `git diff --word-diff` shows them
 * (`Neubau einer Grundschule {+(amended 1)+}`, `[-removed-]`; coloured when
 * colour is on), with a few words of context each side when the whole does
 * not fit; `old → new` when they share none (a date, a number). Broken
 * between words at `width`. An absent or null value is "(none)".
 */
export function diffLines(oldValue: unknown, newValue: unknown, shown: DiffShown, width: number, color: boolean): string[] {
  const paint = (text: string, [on, off]: readonly [string, string]) => (color ? `${on}${text}${off}` : text);
  const text = (value: unknown) => (value === undefined || value === null ? '(none)' : sanitizeForTerminal(cellFor(value, false, true)));
  if (!shown.old || !shown.new) {
    const line = shown.old ? `old: ${text(oldValue)}` : `new: ${text(newValue)}`;
    return indented(line, width);
  }
  const [a, b] = [tokens(text(oldValue)), tokens(text(newValue))];
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a.at(-1 - suffix) === b.at(-1 - suffix)) suffix++;
  const shared = [...a.slice(0, prefix), ...a.slice(a.length - suffix)].some((t) => !/^\s+$/.test(t));
  const removed = a.slice(prefix, a.length - suffix).join('');
  const added = b.slice(prefix, b.length - suffix).join('');
  if (!shared || (removed === '' && added === '') || oldValue === undefined || newValue === undefined) {
    return indented(`${paint(text(oldValue), RED)} → ${paint(text(newValue), GREEN)}`, width);
  }
  // Spaces at the edge of an insertion or a deletion go outside its marks: "Köln {+(amended 1)+}".
  const [lead, middle, trail] = removed === '' || added === '' ? edges(removed + added) : ['', '', ''];
  const marks =
    removed === '' || added === ''
      ? lead + (removed ? paint(`[-${middle}-]`, RED) : paint(`{+${middle}+}`, GREEN)) + trail
      : paint(`[-${removed}-]`, RED) + paint(`{+${added}+}`, GREEN);
  const before = a.slice(0, prefix);
  const after = a.slice(a.length - suffix);
  const whole = indented(`${before.join('')}${marks}${after.join('')}`, width);
  return whole.length === 1 ? whole : indented(`${context(before, 'end')}${marks}${context(after, 'start')}`, width);
}

/** Lines of at most `width`, each indented under the row. */
function indented(text: string, width: number): string[] {
  return wrapWords(text, width - INDENT.length).map((line) => `${INDENT}${line}`);
}

/** Words and the spaces between them, each a token. */
function tokens(text: string): string[] {
  return text.split(/(\s+)/).filter((t) => t !== '');
}

/** Leading spaces, the rest, trailing spaces. */
function edges(text: string): [string, string, string] {
  const [, lead = '', middle = '', trail = ''] = /^(\s*)([\s\S]*?)(\s*)$/.exec(text)!;
  return [lead, middle, trail];
}

/** The CONTEXT words of `parts` nearest the change, "…" for the rest. */
function context(parts: readonly string[], side: 'start' | 'end'): string {
  const words = parts.filter((t) => !/^\s+$/.test(t)).length;
  if (words <= CONTEXT) return parts.join('');
  let seen = 0;
  if (side === 'end') {
    let i = parts.length;
    while (i > 0 && (seen < CONTEXT || /^\s+$/.test(parts[i - 1]!))) if (!/^\s+$/.test(parts[--i]!)) seen++;
    return `…${parts.slice(i).join('')}`;
  }
  let i = 0;
  while (i < parts.length && (seen < CONTEXT || /^\s+$/.test(parts[i]!))) if (!/^\s+$/.test(parts[i++]!)) seen++;
  return `${parts.slice(0, i).join('')}…`;
}
