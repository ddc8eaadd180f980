/**
 * Fitting a table's columns into a terminal's width, a pure calculation:
 * columns that are never cut (ids, dates, codes, numbers) keep their width,
 * text columns (titles, names) give way down to their narrowest width, and
 * when even that does not fit, whole columns are dropped, lowest priority
 * first.
 */

export const GAP = 2;
/** A header wider than its column's data (a dot path) may be cut down to this. */
const HEADER_FLOOR = 7;

export interface ColumnMeasure {
  /** Display width of the header. */
  header: number;
  /** Display width of the widest cell. */
  data: number;
  /** A text column that may be cut: its narrowest width. Absent: never cut. */
  cut?: number;
  /** Cut only once the other text columns are at their narrowest (watch's changedFields before a title). */
  cutLast?: boolean;
  /** Higher priorities are dropped last. */
  priority: number;
}

export interface Fit {
  /** Indexes of the columns shown, in their original order. */
  shown: number[];
  /** Their widths. */
  widths: number[];
  /** Indexes of the columns dropped, highest priority first. */
  hidden: number[];
}

/** Widths for `columns` within `total` display columns; `total` undefined: no limit. */
export function fitColumns(columns: readonly ColumnMeasure[], total: number | undefined): Fit {
  const natural = columns.map((c) => Math.max(c.header, c.data, 1));
  const floor = columns.map((c, i) =>
    c.cut === undefined ? Math.max(c.data, Math.min(c.header, HEADER_FLOOR), 1) : Math.min(natural[i]!, Math.max(c.cut, c.header)),
  );
  const shown = columns.map((_, i) => i);
  const hidden: number[] = [];
  const room = () => (total ?? Infinity) - GAP * (shown.length - 1);
  const sum = (widths: readonly number[]) => shown.reduce((s, i) => s + widths[i]!, 0);

  while (shown.length > 1 && sum(floor) > room()) {
    let lowest = 0;
    for (let k = 1; k < shown.length; k++) if (columns[shown[k]!]!.priority <= columns[shown[lowest]!]!.priority) lowest = k;
    hidden.unshift(shown.splice(lowest, 1)[0]!);
  }

  const widths = [...natural];
  const text = shown.filter((i) => columns[i]!.cut !== undefined && !columns[i]!.cutLast);
  const last = shown.filter((i) => columns[i]!.cut !== undefined && columns[i]!.cutLast);
  shrink(widths, text, floor, sum(widths) - room());
  shrink(widths, last, floor, sum(widths) - room());
  shrink(widths, shown, floor, sum(widths) - room());
  // One column left and still too wide (a very narrow terminal): cut it anyway.
  if (shown.length === 1 && sum(widths) > room()) widths[shown[0]!] = Math.max(1, room());
  return { shown, widths: shown.map((i) => widths[i]!), hidden };
}

/** Takes `excess` columns off `which`, each time from the one furthest above its floor. */
function shrink(widths: number[], which: readonly number[], floor: readonly number[], excess: number): void {
  while (excess > 0) {
    let widest = -1;
    for (const i of which) {
      const slack = widths[i]! - floor[i]!;
      if (slack > 0 && (widest < 0 || slack > widths[widest]! - floor[widest]!)) widest = i;
    }
    if (widest < 0) return;
    widths[widest]!--;
    excess--;
  }
}
