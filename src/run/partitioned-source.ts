import { setMaxListeners } from 'node:events';
import { sumTotals, type Total } from '../model/total.js';
import { walkPages } from '../api/cursor-walk.js';
import { BoundaryDeduper } from './dedupe.js';
import { Chain, mergePartitions, START } from './merge.js';
import type { Dimension, Partition } from './partition.js';
import type { ResultOrder } from './sort-order.js';
import type { ChainReport, ResultSource, SourceOptions, SourcePosition } from './source.js';

/**
 * Several cursor chains (one per partition) walked at once and merged in the
 * query's order. Batches are as large as the query's pages, so a CSV's columns
 * and a table's widths come from the same first results as the single walk's.
 * A result in two chains comes out twice in a row and is written once.
 */
export function partitionedSource(
  opts: SourceOptions & { by: Dimension; partitions: Partition[]; order: ResultOrder; batchSize: number },
): ResultSource {
  const { saved, partitions, order } = opts;
  const dedupe = new BoundaryDeduper(saved?.position.recentIds);
  // Ends every chain's pager (and its request in flight) when the merge stops.
  const stop = new AbortController();
  setMaxListeners(partitions.length + 1, stop.signal); // one pager per chain listens: not a leak

  const onAbort = () => stop.abort(opts.signal.reason);
  const chains = partitions.map((partition, i) => {
    const start = saved?.position.partitions?.[i];
    const position = start?.position ?? START;
    const pages = position.done
      ? emptyPages()
      : walkPages(opts.client, {
          path: opts.query.path,
          body: partition.body,
          cursor: position.cursor ?? undefined,
          maxItems: opts.maxItems,
          firstPage: (start?.pages ?? 0) + 1,
          chain: partition.value === undefined ? undefined : `${opts.by} ${partition.value}`,
          signal: stop.signal,
        });
    return new Chain(partition.value ?? 'query', pages, order, position, start?.total ?? null, start?.pages ?? 0);
  });
  const source = {
    by: opts.by,
    get total(): Total | null {
      return chainsTotal(chains.map((chain) => chain.total));
    },
    get fetched() {
      return chains.reduce((n, chain) => n + chain.pages, 0);
    },
    get dropped() {
      return dedupe.dropped;
    },
    get complete() {
      return chains.every((chain) => chain.position().done);
    },
    async *pages() {
      if (opts.signal.aborted) onAbort();
      opts.signal.addEventListener('abort', onAbort, { once: true });
      try {
        for await (const batch of mergePartitions(chains, order, opts.batchSize)) yield dedupe.filter(batch);
      } finally {
        opts.signal.removeEventListener('abort', onAbort);
        stop.abort();
      }
    },
    position: (finished: boolean): SourcePosition => ({
      nextCursor: null,
      partitions: chains.map((chain) => ({
        position: finished ? { ...START, done: true } : chain.position(),
        total: chain.total,
        pages: chain.pages,
      })),
      recentIds: dedupe.recentIds(),
    }),
    chains: (): ChainReport[] =>
      chains.map((chain, i) => ({ value: partitions[i]!.value, total: chain.total, pages: chain.pages, complete: chain.position().done })),
  };
  return source;
}

/** The sum of the chains' totals once every chain has told its own; capped when any is. */
function chainsTotal(totals: readonly (Total | null)[]): Total | null {
  return totals.some((total) => total === null) ? null : sumTotals(totals as Total[]);
}

async function* emptyPages(): AsyncGenerator<never> {}
