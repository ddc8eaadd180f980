import { stripVTControlCharacters } from 'node:util';

/**
 * Text broken into lines of at most `width` columns at spaces, so a terminal
 * never breaks a word; a word longer than the width stays whole on its line.
 * Colour sequences take no room (string-width would count wide characters
 * right, but help loads this module at start, where no package may be).
 * Later lines start with `indent`.
 */
export function wrapWords(text: string, width: number, indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line === '' ? word : `${line} ${word}`;
    if (line !== '' && visible(next) > width) {
      lines.push(line);
      line = `${indent}${word}`;
    } else line = next;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** A message for stderr: whole where the width is 0 (not a terminal: one line for cron and logs), else broken between words. */
export function brokenAt(line: string, width: number): string {
  return width > 0 ? wrapWords(line, width).join('\n') : line;
}

const visible = (text: string): number => [...stripVTControlCharacters(text)].length;
