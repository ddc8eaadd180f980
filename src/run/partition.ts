import type { FirstRequest } from '../model/request.js';
import { COUNTRIES } from '../query/countries.js';
import { PARTITION_FILTERS, type PartitionFilter } from '../query/tender-filters.js';
import type { QueryPlan } from './plan.js';

/** What a query can be split by (the filter table's partition rows), and the request body field that holds its values. */
export type Dimension = PartitionFilter['key'];
export const DIMENSIONS = Object.fromEntries(PARTITION_FILTERS.map((row) => [row.key, row.body])) as Record<Dimension, string>;

/**
 * Every value of a dimension, for a query that names none: the ISO 3166-1
 * countries, and the statuses the service uses (the spec shows only `open`;
 * closed, awarded and cancelled are those the service is seen to use).
 */
export const EVERY_VALUE: Record<Dimension, readonly string[]> = { country: COUNTRIES, status: ['open', 'closed', 'awarded', 'cancelled'] };

/** One independent cursor chain of a query: the same body with one value of the dimension. */
export interface Partition {
  /** "DEU", "open"; undefined for the one chain of a query that was not split. */
  value?: string;
  body: Record<string, unknown>;
}

export interface Partitioning {
  /** What the query was split by; undefined when there was nothing to split. */
  by?: Dimension;
  partitions: Partition[];
}

/**
 * Splits a query into chains that together return its results: one per
 * country when it names two or more, else one per status, else one chain.
 * Each chain's body is the query's with one value (spec 3.1 holds per chain).
 */
export function partitionQuery(body: Record<string, unknown>): Partitioning {
  for (const by of Object.keys(DIMENSIONS) as Dimension[]) {
    const partitions = partitionBy(body, by);
    if (partitions.length >= 2) return { by, partitions };
  }
  return { partitions: [{ body }] };
}

/** One partition per distinct value of `by` in the query (none when it names none). */
export function partitionBy(body: Record<string, unknown>, by: Dimension): Partition[] {
  const field = DIMENSIONS[by];
  const values = body[field];
  if (!Array.isArray(values)) return [];
  return [...new Set(values.map(String))].map((value) => ({ value, body: { ...body, [field]: [value] } }));
}

/**
 * The parts `by` splits a query into: one per value it names, or one per
 * known value when it names none; none when it names one (nothing to split).
 */
export function splitBy(body: Record<string, unknown>, by: Dimension): Partition[] {
  const field = DIMENSIONS[by];
  if (body[field] === undefined) return EVERY_VALUE[by].map((value) => ({ value, body: { ...body, [field]: [value] } }));
  const parts = partitionBy(body, by);
  return parts.length >= 2 ? parts : [];
}

/** The requests a walk starts with (what --dry-run shows): one per chain, split as openSource splits. */
export function firstRequests(query: QueryPlan, cursor: string | undefined, parallel: number): FirstRequest[] {
  const { by, partitions } = parallel > 1 ? partitionQuery(query.body) : { by: undefined, partitions: [] };
  if (by) return partitions.map((partition) => ({ path: query.path, body: partition.body }));
  return [{ path: query.path, body: cursor === undefined ? query.body : { ...query.body, cursor } }];
}
