import { PARTITION_FILTERS, type PartitionFilter } from '../query/tender-filters.js';

/** What a query can be split by (the filter table's partition rows), and the request body field that holds its values. */
export type Dimension = PartitionFilter['key'];
export const DIMENSIONS = Object.fromEntries(PARTITION_FILTERS.map((row) => [row.key, row.body])) as Record<Dimension, string>;

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
