import type { IO } from '../io.js';
import { stringifyExact } from '../model/exact-json.js';
import type { LocalSelection } from '../model/local-selection.js';
import { countFormat, renderCounts, type CountFormat, type CountRow } from '../output/counts.js';
import { refuseOnTerminal } from '../output/format-registry.js';
import { printTo } from '../output/sink.js';
import type { LocalCount } from '../store/store.js';
import type { StoreTarget } from '../store/location.js';
import { withLocalCopy } from './local-copy.js';

/** What `count --local` asks: the selection, and the field to count values of. */
export interface LocalCountPlan {
  db: StoreTarget;
  selection: LocalSelection;
  /** A dot path into the documents; absent: one total. */
  by?: string;
  format: CountFormat;
}

/** How a tender without the field is shown in a table of counts. */
export const ABSENT_LABEL = '(none)';

/**
 * `count --local`: exact counts from the copy (no ceiling, never "+"),
 * through the same output as the service's counts: one number, or one row
 * per value of `by` (most frequent first) and their sum.
 */
export async function runLocalCount(plan: LocalCountPlan, { io, signal }: { io: IO; signal: AbortSignal }): Promise<void> {
  const format = countFormat(plan.format);
  refuseOnTerminal(format, io.stdoutIsTTY);
  const counts = await withLocalCopy(plan.db, plan.selection.sync, signal, (store) => store.count(plan.selection, plan.by));
  // Without --by the format is one that writes a total (the command checked).
  if (plan.by === undefined) return printTo(io.stdout, signal, `${format.total!({ count: counts.total, capped: false })}\n`);
  const table = { width: io.stdoutWidth() ?? 80, bars: io.stdoutIsTTY, color: io.colorStdout(), grouped: io.stdoutIsTTY, terminal: io.stdoutIsTTY };
  await printTo(io.stdout, signal, await renderCounts(plan.by, counts.rows.map(countRow), plan.format, table));
}

function countRow(row: LocalCount): CountRow {
  const value = row.value === undefined ? ABSENT_LABEL : typeof row.value === 'string' ? row.value : stringifyExact(row.value);
  return { value, json: { value: row.value }, count: row.count, capped: false };
}
