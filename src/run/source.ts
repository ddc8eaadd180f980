import type { Client } from '../api/client.js';
import { limitInFlight } from '../api/in-flight.js';
import type { Page } from '../api/page.js';
import type { Total } from '../model/total.js';
import type { Reporter } from '../output/terminal/reporter.js';
import { PAGE_SIZE_DEFAULT } from '../query/endpoints.js';
import type { SortPaths } from '../query/sort-paths.js';
import { chainSource } from './chain-source.js';
import type { RecentIds } from './dedupe.js';
import type { ChainPosition } from './merge.js';
import { partitionQuery, type Dimension } from './partition.js';
import { partitionedSource } from './partitioned-source.js';
import type { QueryPlan } from './plan.js';
import { ResultOrder } from './sort-order.js';

/** What one chain did: for --verbose and the receipt. */
export interface ChainReport {
  /** The partition's value ("DEU"); absent for an unsplit query. */
  value?: string;
  total: Total | null;
  pages: number;
  /** It reached nextCursor null. */
  complete: boolean;
}

/** Where a source stands after the pages it yielded: what a resume state keeps. */
export interface SourcePosition {
  /** One chain: the cursor of the next page (null: nothing left). */
  nextCursor: string | null;
  /** Partitioned: each chain's position and total, in partition order. */
  partitions?: { position: ChainPosition; total: Total | null; pages: number }[];
  recentIds: RecentIds;
}

/**
 * The results of a query in the service's order, page by page, without
 * duplicates: one cursor chain, or several merged (--parallel). The export
 * walk and watch consume it alike.
 */
export interface ResultSource {
  /** Batches of results to write, in order, duplicates dropped. */
  pages(): AsyncGenerator<Record<string, unknown>[]>;
  /** Matches expected: the first page's total, or the sum of the chains' (capped when any is). */
  readonly total: Total | null;
  /** Pages fetched, including those of an interrupted run that was resumed. */
  readonly fetched: number;
  readonly dropped: number;
  /** Every chain reached nextCursor null. */
  readonly complete: boolean;
  /** What the query was split by; undefined for one chain. */
  readonly by?: Dimension;
  /** The cursor after the last page of one chain (search hints); undefined when partitioned. */
  readonly nextCursor?: string | null;
  /** After the pages yielded so far were written; `finished`: nothing more is wanted (--max reached). */
  position(finished: boolean): SourcePosition;
  chains(): ChainReport[];
}

export interface SourceOptions {
  client: Client;
  query: QueryPlan;
  signal: AbortSignal;
  /** The consumer wants at most this many results: fetch no further. */
  maxItems?: number;
  /** Ask for the next page before the current one is consumed (false: a single page is wanted). */
  prefetch?: boolean;
  /** Start from this cursor (search --cursor). */
  cursor?: string;
  /** The consumer's rule to end the walk after a page, asked before the next is requested (one chain only). */
  stopAfter?: (page: Page) => boolean;
  /** Continue where an interrupted export stopped. */
  saved?: { position: SourcePosition; total: Total | null; pages: number };
}


/**
 * The source of a walk: with --parallel N above 1 and a query that names two
 * or more countries (else statuses), one chain per value merged in order, with
 * at most N requests in flight; otherwise the one chain of today's walk.
 */
export function openSource(opts: SourceOptions & { parallel: number; sortPaths?: SortPaths }, say: Reporter): ResultSource {
  if (opts.parallel > 1) {
    const { by, partitions } = partitionQuery(opts.query.body);
    if (by) {
      say.debug(`--parallel ${opts.parallel}: ${partitions.length} chains, one per ${by}, at most ${opts.parallel} requests in flight`);
      return partitionedSource({
        ...opts,
        by,
        client: limitInFlight(opts.client, opts.parallel),
        partitions,
        order: new ResultOrder(opts.query.body, opts.sortPaths),
        batchSize: typeof opts.query.body.limit === 'number' ? opts.query.body.limit : PAGE_SIZE_DEFAULT,
      });
    }
    say.debug(`--parallel ${opts.parallel}: nothing to split (the query names fewer than two countries and statuses): one chain`);
  }
  return chainSource(opts);
}
