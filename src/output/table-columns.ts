import { headerNames, type HeaderStyle } from './header-style.js';
import type { ColumnSpec } from '../model/column-spec.js';
import { groupDigits } from '../model/numbers.js';
import { cellText, discoverPaths, valueAt, compilePaths } from './paths.js';

/** A column of one table, as its first page settled it. */
export interface TableColumn extends ColumnSpec {
  header: string;
  /** Every value of the first page a number: right-aligned, thousands separators on a terminal. */
  numeric: boolean;
}

/** Text with spaces in it is prose that may be cut; a token (id, date, code, URL) longer than this may be cut last; shorter ones never. */
const TOKEN_MAX = 30;
const PROSE_CUT = 12;
/** Without defaults the data has, a table shows this many of the first page's fields. */
const MAX_DISCOVERED = 8;

export interface ColumnChoice {
  /** --columns: headed by their dot paths, first given kept longest. */
  columns?: readonly string[];
  /** The command's default columns, used when the data has at least two of them (or always: `allDefaults`). */
  defaults?: readonly ColumnSpec[];
  allDefaults?: boolean;
  /** The path the results are sorted by: kept right after the most important column. */
  sortColumn?: string;
  headerStyle: HeaderStyle;
}

/** The columns of a table for its first page of `items`. */
export function tableColumns(items: readonly Record<string, unknown>[], choice: ColumnChoice): TableColumn[] {
  const known = new Map((choice.defaults ?? []).map((spec) => [spec.path, spec]));
  let specs: ColumnSpec[];
  let labelled = false;
  if (choice.columns) {
    specs = choice.columns.map((path, i, all) => ({ ...known.get(path), path, priority: all.length - i }));
  } else {
    const available = discoverPaths(items);
    const present = (choice.defaults ?? []).filter((spec) => choice.allDefaults || available.includes(spec.path));
    labelled = present.length >= 2;
    specs = labelled ? present : available.slice(0, MAX_DISCOVERED).map((path, i, all) => ({ path, priority: all.length - i }));
  }
  const paths = headerNames(
    specs.map((spec) => spec.path),
    choice.headerStyle,
  );
  const top = Math.max(...specs.map((spec) => spec.priority));
  return specs.map((spec, i) => {
    const path = compilePaths([spec.path])[0]!;
    const values = items.map((item) => valueAt(item, path));
    const numeric = values.some((v) => typeof v === 'number') && values.every((v) => v === null || v === undefined || typeof v === 'number');
    const texts = numeric || spec.cut !== undefined ? [] : values.map((v) => cellText(v));
    const prose = texts.some((text) => /\s/.test(text));
    // A long token (a URL, a long id) is cut only once the prose is at its narrowest: cut, it is useless.
    const longToken = !prose && texts.some((text) => text.length > TOKEN_MAX);
    return {
      ...spec,
      header: (labelled && spec.header) || paths[i]!,
      priority: spec.path === choice.sortColumn && spec.priority < top ? top - 0.5 : spec.priority,
      cut: spec.cut ?? (prose || longToken ? PROSE_CUT : undefined),
      cutLast: spec.cutLast ?? (longToken || undefined),
      numeric,
    };
  });
}


/** A cell's text: numbers grouped (amounts in whole units) on a terminal, raw elsewhere. */
export function cellFor(value: unknown, amount: boolean | undefined, terminal: boolean): string {
  if (typeof value !== 'number' || !terminal) return cellText(value);
  return groupDigits(String(amount ? Math.round(value) : value));
}


