import type { Position } from './cursor.js';
import { compareKeys, seek, type Key } from './keyset.js';
import { cappedTotal, type Total } from './page.js';
import type { OrgFilters } from './request.js';

/** An organisation as Search Organisations answers it: a buyer and how many of the source's tenders it has. */
export interface Organisation {
  id: string;
  name: string;
  country: string;
  tenderCount: number;
}

export function orgMatcher(filters: OrgFilters): (o: Organisation) => boolean {
  const countries = filters.countries && new Set(filters.countries);
  const query = filters.query?.toLowerCase();
  return (o) => (!countries || countries.has(o.country)) && (query === undefined || o.name.toLowerCase().includes(query));
}

/** Sorts organisations in place in the operation's order: by name, then id. */
export function sortOrgs(orgs: Organisation[]): Organisation[] {
  return orgs.sort((a, b) => compareKeys(a.name, a.id, b.name, b.id));
}

const keyOf = (o: Organisation): [Key, string] => [o.name, o.id];

/** Up to `limit` of `orgs` (in sortOrgs order) that match, after `after`, and where the next page starts. */
export function orgPage(orgs: readonly Organisation[], match: (o: Organisation) => boolean, limit: number, after?: Position) {
  const found: Organisation[] = [];
  for (let i = after ? seek(orgs, after, keyOf, 'asc') : 0; i < orgs.length && found.length <= limit; i++) {
    if (match(orgs[i]!)) found.push(orgs[i]!);
  }
  const more = found.length > limit;
  if (more) found.pop();
  const last = found.at(-1);
  return { orgs: found, next: more && last ? { key: last.name, id: last.id } : null };
}

export function orgCount(orgs: readonly Organisation[], match: (o: Organisation) => boolean): Total {
  return cappedTotal(orgs.filter(match).length);
}
