import type { FieldTable } from './fields.js';
import type { KnownTenders } from './known.js';
import { keptTender, tenderKey, tenderLine } from './state.js';

export type ChangeKind = 'new' | 'changed' | 'gone';

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

  /** The changes among a page's tenders; `keep` gets the next state's line of each tender it holds from this page. */
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
        this.#keep(key, tender, keep);
        const changed = this.table.differences(this.known!.slots(entry));
        if (changed.length > 0) {
          this.counts.changed++;
          changes.push({ change: 'changed', changedFields: changed, tender });
        }
      }
    }
    return changes;
  }

  /**
   * After a complete walk, the `gone` rows among the previous state's lines (a
   * full run), or the lines to carry over unchanged (a new-only run).
   */
  previous(lines: readonly Buffer[], carry: (line: Buffer) => void): WatchChange[] {
    const gone: WatchChange[] = [];
    for (const line of lines) {
      const entry = this.known!.find(line.toString('utf8', 0, line.indexOf(9)));
      if (entry === undefined) continue; // the header and the summary
      if (this.mode === 'new-only') {
        carry(line);
      } else if (!this.known!.seen(entry)) {
        this.counts.gone++;
        gone.push({ change: 'gone', changedFields: [], tender: keptTender(line) });
      }
    }
    return gone;
  }

  #keep(key: string, tender: Record<string, unknown>, keep: (line: string) => void): void {
    this.table.fingerprint(tender);
    keep(tenderLine(key, this.table, tender));
    const published = tender.publicationDate;
    if (typeof published === 'string' && (this.newest === null || published > this.newest)) this.newest = published;
  }
}
