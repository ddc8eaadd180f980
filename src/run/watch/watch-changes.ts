import type { ChangeKind } from '../../store/store.js';
import type { FieldTable } from './field-table.js';
import type { KnownTenders } from './known.js';
import { keptTender, tenderKey, tenderLine } from './state.js';

/** The pieces of the previous state's bytes in `ranges` (file order), as state.ts rangePieces reads them. */
export type ReadRanges = (ranges: readonly (readonly [number, number])[]) => AsyncIterable<[number, Buffer]>;

/** One row of a watch's output. */
export interface WatchChange {
  change: ChangeKind;
  /** Dot paths of the fields that differ (`changed` only). */
  changedFields: string[];
  /** As the service sent it; for `gone`, what the watch kept of it. */
  tender: Record<string, unknown>;
  /** `changed` only, once recalled: what the watch kept of the tender before (state.ts KEPT_FIELDS), for "old → new". */
  before?: Record<string, unknown>;
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
  /** The last page's changed tenders and their entries, whose previous values `recall` reads. */
  #changed: [WatchChange, number][] = [];

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
    this.#changed = [];
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
          const change: WatchChange = { change: 'changed', changedFields: changed, tender };
          changes.push(change);
          this.#changed.push([change, entry]);
        }
      }
    }
    return changes;
  }

  /**
   * Gives the last page's changed tenders what the previous state kept of
   * them (`before`), read from its lines in one pass: a change then says the
   * old value beside the new.
   */
  async recall(read: ReadRanges): Promise<void> {
    if (this.#changed.length === 0) return;
    const changed = this.#changed.map(([change, entry]) => ({ change, range: this.known!.line(entry) })).sort((a, b) => a.range[0] - b.range[0]);
    this.#changed = [];
    const pieces: Buffer[][] = changed.map(() => []);
    for await (const [r, piece] of read(changed.map((c) => c.range))) pieces[r]!.push(Buffer.from(piece));
    changed.forEach(({ change }, r) => {
      const before = keptTender(Buffer.concat(pieces[r]!), true);
      delete before.id;
      change.before = before;
    });
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
