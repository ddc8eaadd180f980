import { walkPages } from '../api/cursor-walk.js';
import { BoundaryDeduper } from './dedupe.js';
import type { ChainReport, ResultSource, SourceOptions, SourcePosition } from './source.js';

/** One cursor chain, as spec 3.1 walks it: today's export, unchanged by --parallel 1. */
export function chainSource(opts: SourceOptions): ResultSource {
  const { saved } = opts;
  const dedupe = new BoundaryDeduper(saved?.position.recentIds);
  const start = saved ? saved.position.nextCursor : opts.cursor;
  const source = {
    total: saved?.total ?? null,
    fetched: saved?.pages ?? 0,
    complete: start === null,
    nextCursor: start,
    get dropped() {
      return dedupe.dropped;
    },
    async *pages() {
      if (start === null) return;
      for await (const page of walkPages(opts.client, {
        path: opts.query.path,
        body: opts.query.body,
        cursor: start,
        maxItems: opts.maxItems,
        prefetch: opts.prefetch,
        stopAfter: opts.stopAfter,
        firstPage: source.fetched + 1,
        signal: opts.signal,
      })) {
        source.fetched++;
        if (source.fetched === 1 && page.total) source.total = page.total;
        source.nextCursor = page.nextCursor;
        source.complete = page.nextCursor === null;
        yield dedupe.filter(page.items);
      }
    },
    position: (finished: boolean): SourcePosition => ({
      nextCursor: finished ? null : (source.nextCursor ?? null),
      recentIds: dedupe.recentIds(),
    }),
    chains: (): ChainReport[] => [{ total: source.total, pages: source.fetched, complete: source.complete }],
  };
  return source;
}
