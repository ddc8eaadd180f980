import type { IO } from '../io.js';
import { stringifyExact } from '../model/exact-json.js';
import type { LocalSelection } from '../model/local-selection.js';
import { countFormat, renderCounts, type CountFormat, type CountRow } from '../output/counts.js';
import { refuseOnTerminal } from '../output/format-registry.js';
import { printTo } from '../files/sink.js';
import type { LocalCount } from '../store/store.js';
import type { StoreTarget } from '../store/location.js';
import { withLocalCopy } from './local-copy.js';
import { cpvVocabulary } from '../files/cpv-file.js';
import type { CpvVocabulary } from '../model/cpv-vocabulary.js';
import type { CpvLevel } from '../query/local-values.js';

/** What `count --local` asks: the selection, and the field to count values of. */
export interface LocalCountPlan {
  db: StoreTarget;
  selection: LocalSelection;
  /** A dot path into the documents; absent: one total. */
  by?: string;
  format: CountFormat;
  /** With `by` cpv: the level of the hierarchy the codes are grouped at (default 8, each code). */
  cpvLevel?: CpvLevel;
}

/** The `by` that counts per CPV code, each shown with its name in a table. */
const BY_CPV = 'cpv';

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
  const counts = await withLocalCopy(plan.db, plan.selection.sync, signal, (store) => store.count(plan.selection, plan.by, { cpvLevel: plan.cpvLevel }));
  // Without --by the format is one that writes a total (the command checked).
  if (plan.by === undefined) return printTo(io.stdout, signal, `${format.total!({ count: counts.total, capped: false })}\n`);
  const table = { width: io.stdoutWidth() ?? 80, bars: io.stdoutIsTTY, color: io.colorStdout(), grouped: io.stdoutIsTTY, terminal: io.stdoutIsTTY };
  // A table of CPV codes shows each code's name beside it (the records keep the code alone).
  const vocabulary = plan.by === BY_CPV && (plan.format === 'text' || plan.format === 'table') ? cpvVocabulary() : undefined;
  // On a terminal a long name is cut to leave the counts and their bars in view.
  const room = io.stdoutIsTTY ? Math.max(20, table.width - 20) : Infinity;
  const rows = counts.rows.map((row) => countRow(row, vocabulary, room));
  await printTo(io.stdout, signal, await renderCounts(plan.by, rows, plan.format, table));
}

function countRow(row: LocalCount, vocabulary: CpvVocabulary | undefined, room: number): CountRow {
  const text = row.value === undefined ? ABSENT_LABEL : typeof row.value === 'string' ? row.value : stringifyExact(row.value);
  const label = vocabulary && typeof row.value === 'string' ? vocabulary.label(row.value) : text;
  const value = vocabulary && label.length > room ? `${label.slice(0, room - 1)}…` : label;
  return { value, json: { value: row.value }, count: row.count, capped: false };
}
