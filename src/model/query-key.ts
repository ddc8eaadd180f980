import { canonicalJson } from './canonical-json.js';
import { isObject } from './exact-json.js';
import { SORT_DEFAULT_ORDER } from './local-selection.js';

/**
 * What a saved query (a sync's, a watch's) asks, as text two queries share when
 * they ask the same: keys in any order, a filter's list of values in any order
 * (`-c FRA,DEU` is `-c DEU,FRA`), and the default order said or not
 * (`--sort deadline --order asc` is `--sort deadline`).
 */
export function queryKey(query: unknown): string {
  if (!isObject(query) || !isObject(query.body)) return canonicalJson(query);
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query.body)) body[key] = Array.isArray(value) && value.every(isScalar) ? sortedSet(value) : value;
  const sortBy = (body.sortBy ?? 'publicationDate') as string;
  if (Object.hasOwn(SORT_DEFAULT_ORDER, sortBy) && body.sortOrder === SORT_DEFAULT_ORDER[sortBy as keyof typeof SORT_DEFAULT_ORDER]) delete body.sortOrder;
  if (body.sortBy === 'publicationDate') delete body.sortBy;
  return canonicalJson({ ...query, body });
}

function isScalar(value: unknown): boolean {
  return !Array.isArray(value) && !isObject(value);
}

/** A list of filter values as a set: one each, in one order. */
function sortedSet(values: readonly unknown[]): string[] {
  return [...new Set(values.map(canonicalJson))].sort();
}
