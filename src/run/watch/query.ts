import type { SavedQuery } from './state.js';

/** A watch's query as the flags that give it: "--org ORG-1 -c DEU,FRA -s open --sort deadline". */
export function describeQuery(query: SavedQuery): string {
  const flags: string[] = [];
  if (query.org !== null) flags.push(`--org ${query.org}`);
  for (const [key, value] of Object.entries(query.body)) {
    const flag = FLAGS[key];
    if (flag && Array.isArray(value)) flags.push(`${flag} ${value.join(',')}`);
    else if (flag) flags.push(`${flag} ${String(value)}`);
    else flags.push(`--filter ${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  return flags.length ? flags.join(' ') : '(every tender)';
}

const FLAGS: Record<string, string> = { buyerCountries: '-c', statuses: '-s', sortBy: '--sort', sortOrder: '--order' };

/** Whether two queries ask the same, whatever the order of their fields. */
export function sameQuery(a: SavedQuery, b: SavedQuery): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The service's default order, newest publication first (spec 3.2): the one --new-only can stop early in. */
export function newestFirst(body: Record<string, unknown>): boolean {
  return (body.sortBy === undefined || body.sortBy === 'publicationDate') && (body.sortOrder === undefined || body.sortOrder === 'desc');
}
