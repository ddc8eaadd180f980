import type { ChangeKind } from '../../store/store.js';
import type { FieldTable } from './field-table.js';
import type { KnownTenders } from './known.js';
import { keptTender, tenderKey, tenderLine } from './state.js';

/** One row of a watch's output. */
export interface WatchChange {
  change: ChangeKind;
  /** Dot paths of the fields that differ (`changed` only). */
  changedFields: string[];
  /** As the service sent it; for `gone`, what the watch kept of it. */
  tender: Record<string, unknown>;
}

/**
 * How a run compares: `baseline` records everything (reporting it as new only
 * when asked); `full` reports new, changed and, after a complete walk, gone;
 * `new-only` reports new tenders and leaves what it knew untouched.
 */
export type DiffMode = 'baseline' | 'full' | 'new-only';

export interface ChangeCounts {
  new: number;
  changed: number;
  gone: number;
  /** Tenders of the walk, repeats and tenders without an id included. */
  seen: number;
  /** Tenders seen twice in one walk, counted once. */
  repeated: number;
  /** Tenders without a string or number `id`: they cannot be watched. */
  withoutId: number;
}

/** Compares the pages of a walk with what a watch knew, and says what its next state holds. */
export class WatchDiff {
  readonly counts: ChangeCounts = { new: 0, changed: 0, gone: 0, seen: 0, repeated: 0, withoutId: 0 };
  /** The newest publicationDate of the next state's tenders. */
  newest: string | null;

  constructor(
    private readonly mode: DiffMode,
    private readonly known: KnownTenders | undefined,
    private readonly table: FieldTable,
    /** Whether new tenders are output (not on a baseline, unless --initial all). */
    private readonly reportNew: boolean,
    /** The previous state's newest publicationDate (kept by new-only runs). */
    previousNewest: string | null,
  ) {
    this.newest = mode === 'new-only' ? previousNewest : null;
  }

  /** Whether a tender is unknown to the watch (a tender without an id is not: it is never tracked). */
  isNew(tender: Record<string, unknown>): boolean {
    const key = tenderKey(tender);
    return key !== undefined && this.known?.find(key) === undefined;
  }

  /** The changes among a page's tenders; `keep` gets the next state's line of each new or changed tender. */
  page(tenders: readonly Record<string, unknown>[], keep: (line: string) => void): WatchChange[] {
    const changes: WatchChange[] = [];
    for (const tender of tenders) {
      this.counts.seen++;
      const key = tenderKey(tender);
      if (key === undefined) {
        this.counts.withoutId++;
        continue;
      }
      const entry = this.known?.find(key);
      if (entry === undefined) {
        this.counts.new++;
        if (this.reportNew) changes.push({ change: 'new', changedFields: [], tender });
        this.#keep(key, tender, keep);
      } else if (!this.known!.markSeen(entry)) {
        this.counts.repeated++;
      } else if (this.mode === 'full') {
        this.#published(tender);
        this.table.fingerprint(tender);
        const changed = this.table.differences(this.known!.slots(entry));
        // An unchanged tender's line would be the same bytes: the previous state's is carried over.
        if (changed.length > 0) {
          this.counts.changed++;
          this.known!.markChanged(entry);
          keep(tenderLine(key, this.table, tender));
          changes.push({ change: 'changed', changedFields: changed, tender });
        }
      }
    }
    return changes;
  }

  /** After a complete walk, the `gone` rows: the lines of the previous state's tenders it did not see. */
  gone(lines: readonly Buffer[]): WatchChange[] {
    this.counts.gone += lines.length;
    return lines.map((line) => ({ change: 'gone', changedFields: [], tender: keptTender(line) }));
  }

  /** Fingerprints a new tender and hands on its line. */
  #keep(key: string, tender: Record<string, unknown>, keep: (line: string) => void): void {
    this.table.fingerprint(tender);
    keep(tenderLine(key, this.table, tender));
    this.#published(tender);
  }

  #published(tender: Record<string, unknown>): void {
    const published = tender.publicationDate;
    if (typeof published === 'string' && (this.newest === null || published > this.newest)) this.newest = published;
  }
}
