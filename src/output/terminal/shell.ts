import { escapeControls } from './sanitize.js';

/** Command lines for people to copy: each word quoted for a POSIX shell only when it must be. */

const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

export function shellQuote(word: string): string {
  if (PLAIN.test(word)) return word;
  const escaped = escapeControls(word);
  if (escaped === word) return `'${word.replaceAll("'", `'\\''`)}'`;
  // Control characters (a hostile cursor): bash's $'…', which spells them out and still runs.
  return `$'${escapeControls(word.replaceAll('\\', '\\\\').replaceAll("'", "\\'"))}'`;
}

export function shellLine(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}
