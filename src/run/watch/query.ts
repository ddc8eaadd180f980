import { queryKey } from '../../model/query-key.js';
import { bodyAsFlags } from '../../query/tender-filters.js';
import type { SavedQuery } from '../../model/saved-search.js';

/** A watch's query as the flags that give it: "--org ORG-1 --sort deadline -c DEU,FRA -s open". */
export function describeQuery(query: SavedQuery): string {
  const flags = [...(query.org !== null ? [`--org ${query.org}`] : []), ...bodyAsFlags(query.body)];
  return flags.length ? flags.join(' ') : '(every tender)';
}

/** Whether two queries ask the same (see queryKey: fields, a filter's values, the default order). */
export function sameQuery(a: SavedQuery, b: SavedQuery): boolean {
  return queryKey(a) === queryKey(b);
}

/** The service's default order, newest publication first (spec 3.2): the one --new-only can stop early in. */
export function newestFirst(body: Record<string, unknown>): boolean {
  return (body.sortBy === undefined || body.sortBy === 'publicationDate') && (body.sortOrder === undefined || body.sortOrder === 'desc');
}
