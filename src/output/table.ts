import Table from 'cli-table3';
import type { FormatOptions, Formatter, FormatterState } from './formatter.js';
import { cellText, compilePaths, discoverPaths, valueAt } from './paths.js';
import { sanitizeForTerminal } from './sanitize.js';
import { displayWidth, truncateToWidth } from './text-width.js';

const GAP = 2;
const MAX_NATURAL = 60;
const MIN_COLUMN = 4;
const SOFT_FLOOR = 20;
const SOFT_FLOOR_MIN = 8;
const MAX_DISCOVERED = 8;

// Borderless, like `gh` and `kubectl`: pages rendered one after another read as one table.
const CHARS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '',
  middle: ' '.repeat(GAP),
};

/**
 * A readable table fitted to the terminal width. Column widths are set from
 * the first page and kept, so later pages stream out under the same header.
 */
export class TableFormatter implements Formatter {
  #columns: string[] | undefined;
  #paths: string[][] = [];
  #widths: number[] = [];
  #rows = 0;

  constructor(
    private readonly opts: FormatOptions,
    resume?: FormatterState,
  ) {
    if (resume?.columns && resume.widths) {
      this.#columns = resume.columns;
      this.#paths = compilePaths(resume.columns);
      this.#widths = resume.widths;
      this.#rows = resume.rows;
    }
  }

  page(items: readonly Record<string, unknown>[]): string {
    if (items.length === 0) return '';
    const cells = (rows: readonly Record<string, unknown>[]) =>
      rows.map((item) => this.#paths.map((path) => sanitizeForTerminal(cellText(valueAt(item, path)))));
    const first = !this.#columns;
    if (first) {
      this.#columns = this.opts.columns ?? chooseColumns(items, this.opts.defaultColumns);
      this.#paths = compilePaths(this.#columns);
    }
    const rows = cells(items);
    if (first) this.#widths = fitWidths(this.#columns!, rows, this.opts.width);

    const table = new Table({
      head: first ? this.#columns!.map((c, i) => truncateToWidth(c, this.#widths[i]!)) : [],
      colWidths: this.#widths,
      wordWrap: false,
      chars: CHARS,
      style: { 'padding-left': 0, 'padding-right': 0, head: this.opts.color ? ['bold'] : [], border: [] },
    });
    for (const row of rows) table.push(row.map((cell, i) => truncateToWidth(cell, this.#widths[i]!)));
    this.#rows += items.length;
    return table
      .toString()
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n') + '\n';
  }

  end(): string {
    return '';
  }

  state(): FormatterState {
    return { rows: this.#rows, columns: this.#columns, widths: this.#widths };
  }
}

/** The default columns the data has, else the first page's own (scalar) fields. */
function chooseColumns(items: readonly Record<string, unknown>[], preferred: string[] | undefined): string[] {
  const available = discoverPaths(items);
  const present = (preferred ?? []).filter((column) => available.includes(column));
  return present.length >= 2 ? present : available.slice(0, MAX_DISCOVERED);
}

/**
 * Natural widths, then columns give way until the table fits, widest first:
 * first a header wider than its data (estimatedValue.amountEur), then data
 * beyond 20 columns, then anything down to a few columns.
 */
export function fitWidths(columns: readonly string[], rows: readonly string[][], total: number): number[] {
  const cellWidths = columns.map((_, i) => Math.max(0, ...rows.map((row) => displayWidth(row[i]!))));
  const widths = columns.map((column, i) => Math.min(MAX_NATURAL, Math.max(displayWidth(column), cellWidths[i]!)));
  const available = Math.max(total - GAP * (columns.length - 1), MIN_COLUMN * columns.length);
  const floor = (limit: number) => widths.map((w, i) => Math.min(w, Math.max(SOFT_FLOOR_MIN, Math.min(cellWidths[i]!, limit))));
  shrink(widths, floor(MAX_NATURAL), available);
  shrink(widths, floor(SOFT_FLOOR), available);
  shrink(widths, widths.map(() => MIN_COLUMN), available);
  return widths;
}

/** Takes a column at a time off the widest column above its floor until the sum fits. */
function shrink(widths: number[], floors: readonly number[], available: number): void {
  let excess = widths.reduce((a, b) => a + b, 0) - available;
  while (excess > 0) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (widths[i]! > floors[i]! && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    }
    if (widest < 0) return;
    widths[widest]!--;
    excess--;
  }
}
