import Table from 'cli-table3';
import stringWidth from 'string-width';
import type { FormatOptions, Formatter, FormatterState } from './formatter.js';
import { compilePaths, valueAt } from './paths.js';
import { sanitizeForTerminal } from './sanitize.js';
import { wrapWords } from './wrap.js';
import { cellFor, tableColumns } from './table-columns.js';
import { fitColumns, GAP } from './table-fit.js';

// Borderless, like `gh` and `kubectl`: pages rendered one after another read as one table.
const CHARS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '',
  middle: ' '.repeat(GAP),
};

/** What a resumed table needs to go on under the same header: its columns, widths and alignment. */
interface TableLayout {
  columns: string[];
  widths: number[];
  right: boolean[];
}

/**
 * A readable table fitted to the terminal width. The first page settles the
 * columns (dropping those that do not fit), their widths and alignment; later
 * pages stream out under the same header. cli-table3 cuts cells to their
 * column with an ellipsis.
 */
export class TableFormatter implements Formatter {
  #layout: TableLayout | undefined;
  #paths: string[][] = [];
  #hidden: string[] = [];
  #rows = 0;
  /** Per shown column: money, in whole units on a terminal. */
  #amounts: boolean[] = [];

  constructor(
    private readonly opts: FormatOptions,
    resume?: FormatterState,
  ) {
    if (resume?.columns && resume.widths) {
      this.#setLayout({ columns: resume.columns, widths: resume.widths, right: resume.rightAligned ?? [] });
      this.#rows = resume.rows;
    }
  }

  page(items: readonly Record<string, unknown>[]): string {
    if (items.length === 0) return '';
    const head = this.#layout ? undefined : this.#settle(items);
    const layout = this.#layout!;
    const table = new Table({
      // Bold set here, not through cli-table3's style: its colour library decides by itself
      // (process.stdout, FORCE_COLOR), and the decision is the IO's (--color, NO_COLOR, TERM).
      head: (head ?? []).map((text) => (this.opts.color ? `\x1b[1m${text}\x1b[22m` : text)),
      colWidths: layout.widths,
      colAligns: layout.right.map((right) => (right ? 'right' : 'left')),
      wordWrap: false,
      chars: CHARS,
      style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [] },
    });
    for (const item of items) {
      table.push(this.#paths.map((path, i) => this.#cell(valueAt(item, path), this.#amounts[i])));
    }
    this.#rows += items.length;
    return (
      table
        .toString()
        .split('\n')
        .map((line) => line.trimEnd())
        .join('\n') + '\n'
    );
  }

  end(): string {
    return '';
  }

  state(): FormatterState {
    const layout = this.#layout;
    return { rows: this.#rows, columns: layout?.columns, widths: layout?.widths, rightAligned: layout?.right };
  }

  /** Said once, on stderr: what a narrow terminal left out. */
  hints(): string[] {
    if (this.#hidden.length === 0) return [];
    const n = this.#hidden.length;
    const remedy = this.opts.columns ? 'fewer --columns' : '--columns';
    const note = `${n} column${n === 1 ? '' : 's'} hidden at ${this.opts.width} columns: ${this.#hidden.join(', ')}; widen the terminal or use ${remedy}`;
    // Broken at spaces, not wherever the terminal would cut a word.
    return this.opts.width ? wrapWords(note, this.opts.width) : [note];
  }

  /** Chooses and fits the columns to the first page; returns the header. */
  #settle(items: readonly Record<string, unknown>[]): string[] {
    const columns = tableColumns(items, {
      columns: this.opts.columns,
      defaults: this.opts.defaultColumns,
      allDefaults: this.opts.allDefaults,
      sortColumn: this.opts.sortColumn,
      headerStyle: this.opts.headerStyle,
    });
    const paths = compilePaths(columns.map((c) => c.path));
    const fit = fitColumns(
      columns.map((column, i) => ({
        header: stringWidth(column.header),
        data: Math.max(column.width ?? 0, ...items.map((item) => stringWidth(this.#cell(valueAt(item, paths[i]!), column.amount)))),
        cut: column.cut,
        cutLast: column.cutLast,
        priority: column.priority,
      })),
      this.opts.width,
    );
    const shown = fit.shown.map((i) => columns[i]!);
    this.#hidden = fit.hidden.map((i) => columns[i]!.path);
    this.#amounts = shown.map((c) => Boolean(c.amount));
    this.#setLayout({ columns: shown.map((c) => c.path), widths: fit.widths, right: shown.map((c) => c.numeric) });
    return shown.map((c) => sanitizeForTerminal(c.header));
  }

  #cell(value: unknown, amount: boolean | undefined): string {
    return sanitizeForTerminal(cellFor(value, amount, Boolean(this.opts.terminal)));
  }

  #setLayout(layout: TableLayout): void {
    this.#layout = layout;
    this.#paths = compilePaths(layout.columns);
  }
}
