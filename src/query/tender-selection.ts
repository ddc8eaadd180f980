import { UsageError } from '../errors.js';
import type { LocalSelection } from '../model/local-selection.js';
import type { LocalFilterFlags, TenderFilterFlags } from './tender-body.js';
import { givenValue, TENDER_FILTERS, tenderFilter } from './tender-filters.js';

/**
 * The LocalSelection of a local query (`search/export/count --local`) for the
 * parsed flags, from the filter table: tender-body.ts's counterpart for the
 * copy `tenders sync` keeps. `now` anchors durations (7d) and `today`.
 * Checked before the store is opened; each failure is a UsageError (exit 2).
 */
export function localSelection(flags: TenderFilterFlags & LocalFilterFlags, now: Date): LocalSelection {
  const selection: Record<string, unknown> = {};
  for (const row of TENDER_FILTERS) {
    const raw = givenValue(flags, row);
    if (raw === undefined) continue;
    if (row.scope === 'online') {
      throw new UsageError(
        `${row.flag} sends a field to the service, which a local query (--local) does not ask: ` +
          'select with WORDS, --since/--until, --deadline-after/--deadline-before or --min-value/--max-value',
      );
    }
    if (row.selection) {
      const value = row.parse(raw, now);
      if (value !== undefined) selection[row.selection] = value;
    }
  }
  const local = selection as LocalSelection;
  checkRange(local.publishedSince, local.publishedUntil, 'since', 'until');
  checkRange(local.deadlineAfter, local.deadlineBefore, 'deadlineAfter', 'deadlineBefore');
  checkRange(local.minValueEur, local.maxValueEur, 'minValue', 'maxValue');
  return local;
}

/** A lower bound above its upper bound matches nothing: a mistake to say, not an empty result. */
function checkRange<T extends string | number>(low: T | undefined, high: T | undefined, lowKey: 'since' | 'deadlineAfter' | 'minValue', highKey: 'until' | 'deadlineBefore' | 'maxValue'): void {
  if (low === undefined || high === undefined || low <= high) return;
  const [lowFlag, highFlag] = [tenderFilter(lowKey).flag, tenderFilter(highKey).flag];
  throw new UsageError(`${lowFlag} (${String(low)}) is after ${highFlag} (${String(high)}): no tender can match both`);
}
