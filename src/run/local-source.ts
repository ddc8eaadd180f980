import type { Client } from '../api/client.js';
import type { LocalSelection } from '../model/local-selection.js';
import type { Total } from '../model/total.js';
import type { Reporter } from '../output/terminal/reporter.js';
import { encodeLocalCursor } from '../query/local-cursor.js';
import type { StoreTarget } from '../store/location.js';
import type { Store } from '../store/store.js';
import type { ResultSource, SourcePosition } from './source.js';

/** What a local query is given instead of a service: where the copy is, what to select, how much. */
export interface LocalPlan {
  /** The copy (a file path or postgres:// URL, and how to reach it). */
  db: StoreTarget;
  selection: LocalSelection;
  /** Results of one page (search without --all/--max). */
  pageSize: number;
  /** Continue after this tender (a decoded local --cursor). */
  after?: string;
}

/** A local run makes no request: the session's client slot holds this, which refuses to send one. */
export const NO_CLIENT: Client = {
  post: () => Promise.reject(new Error('a local query sends no request')),
  close: async () => {},
};

/**
 * The tenders of a local selection as a walk's source, so that the same walk
 * and session write them as online results. One page: `pageSize` tenders and
 * a local cursor when more follow; `maxItems`: that many; else every one.
 * One store read: every batch comes from the same snapshot of the copy.
 */
export function localSource(
  store: Store,
  plan: LocalPlan,
  opts: { maxItems?: number; all: boolean; total: Total | null },
  say: Reporter,
): ResultSource & { readonly rows: number } {
  const wanted = opts.maxItems ?? (opts.all ? undefined : plan.pageSize);
  let fetched = 0;
  let complete = false;
  let nextCursor: string | null = null;
  let given = 0;
  return {
    total: opts.total,
    dropped: 0,
    get fetched() {
      return fetched;
    },
    get complete() {
      return complete;
    },
    get nextCursor() {
      return nextCursor;
    },
    /** Tenders given so far. */
    get rows() {
      return given;
    },
    async *pages() {
      // One more than wanted says whether a next page exists.
      const limit = wanted === undefined ? undefined : wanted + 1;
      let last: string | undefined;
      const started = performance.now();
      for await (const batch of store.select(plan.selection, { limit, after: plan.after })) {
        if (fetched === 0) say.debug(`the local copy gave the first ${batch.length} tenders in ${(performance.now() - started).toFixed(1)} ms`);
        fetched++;
        const room = wanted === undefined ? batch.length : Math.max(0, wanted - given);
        const page = batch.slice(0, room);
        if (page.length < batch.length) {
          nextCursor = encodeLocalCursor(plan.selection, page.length ? String(page[page.length - 1]!.id) : last!);
          if (page.length) yield page;
          return;
        }
        given += page.length;
        if (page.length) last = String(page[page.length - 1]!.id);
        yield page;
      }
      complete = true;
    },
    position(): SourcePosition {
      throw new Error('a local query is not resumable');
    },
    chains: () => [],
  };
}
