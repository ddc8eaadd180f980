/**
 * Fitting a table's columns into a terminal's width, a pure calculation:
 * columns that are never cut (ids, dates, codes, numbers) keep their width,
 * text columns (titles, names) give way down to their narrowest width, and
 * when even that does not fit, whole columns are dropped, lowest priority
 * first. A column worth more than the text's usual width (one the query
 * filters or sorts by, a watch's changed fields) makes the text give way
 * further, down to SQUEEZED, before it is dropped or cut; a column the user
 * named is never dropped.
 */

export const GAP = 2;
/** A header wider than its column's data (a dot path) may be cut down to this. */
const HEADER_FLOOR = 7;
/** How narrow a text column gets for a column that is kept: "Neubau e…" still says something. */
const SQUEEZED = 10;

export interface ColumnMeasure {
  /** Display width of the header. */
  header: number;
  /** Display width of the widest cell. */
  data: number;
  /** A text column that may be cut: its narrowest width. Absent: never cut. */
  cut?: number;
  /** Cut only once the other text columns are squeezed (watch's changedFields before a title). */
  cutLast?: boolean;
  /** Higher priorities are dropped last. */
  priority: number;
  /** Kept before the text is cut further (what the query filters or sorts by): the text squeezes before this is dropped. */
  keep?: boolean;
  /** Named by the user (--columns): never dropped. */
  required?: boolean;
}

export interface Fit {
  /** Indexes of the columns shown, in their original order. */
  shown: number[];
  /** Their widths. */
  widths: number[];
  /** Indexes of the columns dropped, highest priority first. */
  hidden: number[];
  /** The width the shown columns need at their narrowest, when that is more than `total` (required columns that do not fit). */
  overflow?: number;
}

/** Widths for `columns` within `total` display columns; `total` undefined: no limit. */
export function fitColumns(columns: readonly ColumnMeasure[], total: number | undefined): Fit {
  const natural = columns.map((c) => Math.max(c.header, c.data, 1));
  let floor = columns.map((c, i) =>
    c.cut === undefined ? Math.max(c.data, Math.min(c.header, HEADER_FLOOR), 1) : Math.min(natural[i]!, Math.max(c.cut, c.header)),
  );
  const squeezed = columns.map((c, i) => (c.cut === undefined ? floor[i]! : Math.min(floor[i]!, Math.max(SQUEEZED, Math.min(c.header, HEADER_FLOOR)))));
  const shown = columns.map((_, i) => i);
  const hidden: number[] = [];
  const room = () => (total ?? Infinity) - GAP * (shown.length - 1);
  const sum = (widths: readonly number[]) => shown.reduce((s, i) => s + widths[i]!, 0);
  const text = () => shown.filter((i) => columns[i]!.cut !== undefined && !columns[i]!.cutLast && !columns[i]!.keep);

  // A column cut last counts whole while the columns that go for it rank below every text column (a watch's changed fields
  // outlive the publication date and the value, not the buyer or the title).
  const cutFloor = floor;
  const textRank = Math.min(...columns.filter((c) => c.cut !== undefined && !c.cutLast).map((c) => c.priority));
  let lastWhole = columns.some((c) => c.cutLast);
  if (lastWhole) floor = columns.map((c, i) => (c.cutLast ? natural[i]! : cutFloor[i]!));
  while (shown.length > 1 && sum(floor) > room()) {
    const lowest = lowestOf(columns, shown, (c) => !c.required);
    const column = lowest < 0 ? undefined : columns[shown[lowest]!]!;
    if (lastWhole && (!column || column.priority >= textRank)) {
      lastWhole = false;
      floor = floor.map((width, i) => (columns[i]!.cutLast ? cutFloor[i]! : width));
      continue;
    }
    if (!column || column.keep || column.cutLast) {
      // Before a kept column goes, the text gives way to its squeezed width (only as much as needed)...
      const trial = [...floor];
      shrink(trial, text(), squeezed, sum(trial) - room());
      if (sum(trial) <= room() || !column) {
        floor = trial;
        if (!column) break;
        continue;
      }
    }
    // ...and the columns that are not kept go first.
    const other = column.keep || column.cutLast ? lowestOf(columns, shown, (c) => !c.required && !c.keep && !c.cutLast) : -1;
    hidden.unshift(shown.splice(other >= 0 ? other : lowest, 1)[0]!);
  }

  const widths = [...natural];
  const last = shown.filter((i) => columns[i]!.cut !== undefined && (columns[i]!.cutLast || columns[i]!.keep));
  shrink(widths, text(), floor, sum(widths) - room());
  // A column cut last waits until the text is squeezed.
  if (last.length > 0) shrink(widths, text(), squeezed, sum(widths) - room());
  shrink(widths, last, floor, sum(widths) - room());
  shrink(widths, shown, floor, sum(widths) - room());
  const overflow = sum(widths) > room() && shown.some((i) => columns[i]!.required) ? sum(widths) + GAP * (shown.length - 1) : undefined;
  // One column left and still too wide (a very narrow terminal): cut it anyway.
  if (shown.length === 1 && sum(widths) > room()) widths[shown[0]!] = Math.max(1, room());
  return { shown, widths: shown.map((i) => widths[i]!), hidden, ...(overflow !== undefined && shown.length > 1 ? { overflow } : {}) };
}

/** The position in `shown` of the lowest-priority column that `may` go (the later of equals); -1 when none may. */
function lowestOf(columns: readonly ColumnMeasure[], shown: readonly number[], may: (c: ColumnMeasure) => boolean): number {
  let lowest = -1;
  for (let k = 0; k < shown.length; k++) {
    const column = columns[shown[k]!]!;
    if (may(column) && (lowest < 0 || column.priority <= columns[shown[lowest]!]!.priority)) lowest = k;
  }
  return lowest;
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
