/** A column a table shows by default: its field, a short header for people, how it gives way. */
export interface ColumnSpec {
  path: string;
  /** A short header for people; the dot path when absent. */
  header?: string;
  /** Higher stays longer on a narrow terminal. */
  priority: number;
  /** Text that may be cut (titles, names), down to this many columns. Absent: never cut. */
  cut?: number;
  /** Cut only after the other text columns (see ColumnMeasure). */
  cutLast?: boolean;
  /** Money: shown in whole units on a terminal. */
  amount?: boolean;
  /** Values known ahead (watch's change kinds): room for the widest, whatever the first page holds. */
  width?: number;
}
