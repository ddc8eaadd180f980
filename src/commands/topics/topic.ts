import { Help } from 'commander';

/**
 * A help topic: what users look up at the terminal (`tenders help NAME`).
 * The docs hold each topic's text in a generated block (`npm run docs:topics`),
 * and a test checks that block against this text, so the two cannot drift.
 */
export interface HelpTopic {
  name: string;
  summary: string;
  /** The text, for a terminal `width` columns wide. */
  text(width: number): string;
}

/** Paragraphs of prose, each wrapped to `width` (none under 40 columns, as commander's help). */
export function prose(width: number, ...paragraphs: string[]): string {
  const help = new Help();
  return paragraphs.map((paragraph) => help.boxWrap(paragraph.replace(/\s*\n\s*/g, ' '), width)).join('\n\n');
}

/** A list of `term  description` items, as commander lays out options. */
export function items(width: number, entries: readonly (readonly [string, string])[]): string {
  const help = new Help();
  help.helpWidth = width;
  const termWidth = Math.max(...entries.map(([term]) => term.length));
  return entries.map(([term, description]) => help.formatItem(term, termWidth, description, help)).join('\n');
}
