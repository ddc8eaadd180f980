import { headerNames, type HeaderStyle } from '../header-style.js';
import type { ColumnSpec } from '../../model/column-spec.js';
import { groupDigits } from '../../model/numbers.js';
import { readInstant } from '../../model/instant.js';
import { cellText, discoverPaths, valueAt, compilePaths } from '../../model/paths.js';

/** How a column of instants is shown on a terminal: the day alone (every time midnight), or in UTC to the minute or the second. */
export type DateMode = 'day' | 'minute' | 'second';

/** A column of one table, as its first page settled it. */
export interface TableColumn extends ColumnSpec {
  header: string;
  /** Every value of the first page a number: right-aligned, thousands separators on a terminal. */
  numeric: boolean;
  /** A column of instants with times, compacted on a terminal. */
  dates?: DateMode;
  /** Sorted or filtered by: the text gives way further before it goes (table-fit.ts). */
  keep?: boolean;
  /** Named in --columns: never hidden. */
  required?: boolean;
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
  /** The paths the query filters by (a range, several values): kept before the text is cut further. */
  filterColumns?: readonly string[];
  headerStyle: HeaderStyle;
  /** A terminal: instants compact (DateMode), UTC said in their header. */
  compactDates?: boolean;
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
    const dates = choice.compactDates && !numeric ? dateMode(values) : undefined;
    const texts = numeric || spec.cut !== undefined ? [] : values.map((v) => cellText(v));
    const prose = texts.some((text) => /\s/.test(text));
    // A long token (a URL, a long id) is cut only once the prose is at its narrowest: cut, it is useless.
    const longToken = !prose && texts.some((text) => text.length > TOKEN_MAX);
    const header = (labelled && spec.header) || paths[i]!;
    const sorted = spec.path === choice.sortColumn;
    return {
      ...spec,
      header: dates === 'minute' || dates === 'second' ? `${header} (UTC)` : header,
      priority: sorted && spec.priority < top ? top - 0.5 : spec.priority,
      cut: dates ? undefined : (spec.cut ?? (prose || longToken ? PROSE_CUT : undefined)),
      cutLast: spec.cutLast ?? (longToken || undefined),
      keep: sorted || choice.filterColumns?.includes(spec.path) || undefined,
      required: choice.columns ? true : undefined,
      numeric,
      ...(dates ? { dates } : {}),
    };
  });
}


/** A cell's text: numbers grouped (amounts in whole units) and instants compacted on a terminal, raw elsewhere. */
export function cellFor(value: unknown, amount: boolean | undefined, terminal: boolean, dates?: DateMode): string {
  if (dates && typeof value === 'string') return dateCell(value, dates);
  if (typeof value !== 'number' || !terminal) return cellText(value);
  return groupDigits(String(amount ? Math.round(value) : value));
}

/**
 * How a column's first values are best shown: undefined unless every one is
 * an instant (or empty) and one has a time; the day alone when every time is
 * midnight UTC; else to the minute, or the second when one needs it.
 */
function dateMode(values: readonly unknown[]): DateMode | undefined {
  let mode: DateMode | undefined;
  let timed = false;
  for (const value of values) {
    if (value === null || value === undefined || value === '') continue;
    const instant = typeof value === 'string' ? readInstant(value) : undefined;
    if (!instant) return undefined;
    timed ||= !instant.dateOnly;
    mode = widest(mode, instant.dateOnly ? 'day' : modeOf(instant.ms));
  }
  return timed ? mode : undefined;
}

const DAY = 86_400_000;

function modeOf(ms: number): DateMode {
  const time = ((ms % DAY) + DAY) % DAY;
  return time === 0 ? 'day' : time % 60_000 === 0 ? 'minute' : 'second';
}

const MODES: readonly DateMode[] = ['day', 'minute', 'second'];
const widest = (a: DateMode | undefined, b: DateMode): DateMode => (a && MODES.indexOf(a) > MODES.indexOf(b) ? a : b);

/**
 * "2025-01-17 12:00" (UTC) for "2025-01-17T13:00:00+01:00" in a minute
 * column; a value the column's mode would lose part of is shown in the mode it
 * needs (wider, so cut visibly, never wrong); a day alone stays as it is.
 */
function dateCell(text: string, mode: DateMode): string {
  const instant = readInstant(text);
  if (!instant || instant.dateOnly) return text;
  const iso = new Date(instant.ms).toISOString();
  const shown = widest(mode, modeOf(instant.ms));
  return shown === 'day' ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, shown === 'minute' ? 16 : 19)}`;
}


