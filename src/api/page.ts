import { isObject } from '../model/exact-json.js';
import type { Total } from '../model/total.js';
import { BadResponseError } from './errors.js';

/** One page of a search response, in the terms of the paging contract. */
export interface Page {
  items: Record<string, unknown>[];
  nextCursor: string | null;
  total: Total | null;
}

/**
 * Reads a search response: `page` with `nextCursor` and `total`, and the results
 * as the one array-valued field beside `page` (the organisation operations'
 * key names are not in the spec, so the key is found, not assumed).
 */
export function readPage(body: unknown, status: number, path: string): Page {
  const bad = (problem: string) => new BadResponseError(status, path, problem);
  if (!isObject(body)) throw bad('the body is not a JSON object');
  const page = body.page;
  if (!isObject(page)) throw bad('it has no "page" object');

  const nextCursor = page.nextCursor;
  if (nextCursor !== null && (typeof nextCursor !== 'string' || nextCursor === '')) {
    throw bad('"page.nextCursor" is neither a string nor null');
  }
  const total = readTotal(page.total);
  if (total === undefined) throw bad('"page.total" is neither null nor {count, capped}');

  const arrays = Object.keys(body).filter((key) => key !== 'page' && Array.isArray(body[key]));
  if (arrays.length === 0) throw bad('it has no results array beside "page"');
  if (arrays.length > 1) throw bad(`it has several arrays beside "page" (${arrays.join(', ')}), so the results are ambiguous`);
  const resultsKey = arrays[0]!;
  const items = body[resultsKey] as unknown[];
  if (!items.every(isObject)) throw bad(`"${resultsKey}" holds something other than objects`);
  return { items: items as Record<string, unknown>[], nextCursor, total };
}

function readTotal(value: unknown): Total | null | undefined {
  if (value === null || value === undefined) return null;
  if (!isObject(value) || typeof value.count !== 'number' || typeof value.capped !== 'boolean') return undefined;
  return { count: value.count, capped: value.capped };
}
