import Table from 'cli-table3';
import stringWidth from 'string-width';
import type { FormatOptions, Formatter, FormatterState } from '../formatter.js';
import { compilePaths, valueAt } from '../../model/paths.js';
import { sanitizeForTerminal } from './sanitize.js';
import { wrapWords } from './wrap.js';
import { RunError } from '../../errors.js';
import { cellFor, tableColumns, type DateMode } from './table-columns.js';
import { diffLines, type DiffShown } from './table-diff.js';
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
  /** Instants compacted on a terminal, per column (a resumed file table has none). */
  dates?: (DateMode | undefined)[];
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
  /** A change's values shown under its row (a terminal, opts.diff): which of them. */
  #diff: DiffShown | undefined;
  #diffPaths: string[][] = [];

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
      table.push(this.#paths.map((path, i) => this.#cell(valueAt(item, path), this.#amounts[i], layout.dates?.[i])));
    }
    this.#rows += items.length;
    const lines = table
      .toString()
      .split('\n')
      .map((line) => line.trimEnd());
    if (!this.#diff) return lines.join('\n') + '\n';
    // Each row (one line: cells never wrap) followed by what changed in it.
    const rows = lines.slice(lines.length - items.length);
    const out = lines.slice(0, lines.length - items.length);
    for (const [i, item] of items.entries()) {
      out.push(rows[i]!);
      const [oldValue, newValue] = this.#diffPaths.map((path) => valueAt(item, path));
      if (oldValue !== undefined || newValue !== undefined) out.push(...diffLines(oldValue, newValue, this.#diff, this.opts.width!, this.opts.color));
    }
    return out.join('\n') + '\n';
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
    // Never a column named in --columns: those are all shown, or refused (#settle).
    const note = `${n} column${n === 1 ? '' : 's'} hidden at ${this.opts.width} columns: ${this.#hidden.join(', ')}; widen the terminal or use --columns`;
    // Broken at spaces, not wherever the terminal would cut a word.
    return this.opts.width ? wrapWords(note, this.opts.width) : [note];
  }

  /** Chooses and fits the columns to the first page; returns the header. */
  #settle(items: readonly Record<string, unknown>[]): string[] {
    const terminal = Boolean(this.opts.terminal);
    const { diff, width } = this.opts;
    let columns = tableColumns(items, {
      columns: this.opts.columns,
      defaults: this.opts.defaultColumns,
      allDefaults: this.opts.allDefaults,
      sortColumn: this.opts.sortColumn,
      filterColumns: this.opts.filterColumns,
      headerStyle: this.opts.headerStyle,
      compactDates: terminal,
    });
    if (diff && terminal && width !== undefined) {
      // On a terminal a change's values leave the table for the lines under its row, where nothing cuts them.
      const shown = { old: columns.some((c) => c.path === diff.old), new: columns.some((c) => c.path === diff.new) };
      if (shown.old || shown.new) {
        this.#diff = shown;
        this.#diffPaths = compilePaths([diff.old, diff.new]);
      }
      columns = columns.filter((c) => c.path !== diff.old && c.path !== diff.new);
    }
    const paths = compilePaths(columns.map((c) => c.path));
    const fit = fitColumns(
      columns.map((column, i) => ({
        header: stringWidth(column.header),
        data: Math.max(column.width ?? 0, ...items.map((item) => stringWidth(this.#cell(valueAt(item, paths[i]!), column.amount, column.dates)))),
        cut: column.cut,
        cutLast: column.cutLast,
        priority: column.priority,
        keep: column.keep,
        required: column.required,
      })),
      width,
    );
    if (fit.overflow !== undefined) {
      // Every column asked for is shown, or none: a table wider than the screen would wrap into a mess.
      throw new RunError(
        `--columns ${this.opts.columns!.join(',')} need ${fit.overflow} columns at their narrowest and the terminal has ${width}: ` +
          'name fewer columns, widen the terminal, or write them to a file or a pipe (-o FILE, -f table | less -S)',
      );
    }
    const shown = fit.shown.map((i) => columns[i]!);
    this.#hidden = fit.hidden.map((i) => columns[i]!.path);
    this.#amounts = shown.map((c) => Boolean(c.amount));
    const dates = shown.map((c) => c.dates);
    this.#setLayout({ columns: shown.map((c) => c.path), widths: fit.widths, right: shown.map((c) => c.numeric), ...(dates.some(Boolean) ? { dates } : {}) });
    return shown.map((c) => sanitizeForTerminal(c.header));
  }

  #cell(value: unknown, amount: boolean | undefined, dates: DateMode | undefined): string {
    return sanitizeForTerminal(cellFor(value, amount, Boolean(this.opts.terminal), dates));
  }

  #setLayout(layout: TableLayout): void {
    this.#layout = layout;
    this.#paths = compilePaths(layout.columns);
  }
}
