import { selectionQuery, type FormValues } from './form-fields.js';
import type { WebDeps } from './web-request.js';

/**
 * The addresses the pages link to. Those under /syncs/{name}/ are served by
 * `tenders serve` beside the page (docs/web.md lists them): downloads and
 * subscriptions of a sync, with the page's selection as query parameters.
 */

export function tenderPath(id: string): string {
  return `/tenders/${encodeURIComponent(id)}`;
}

export function searchPath(values: FormValues, extra: Record<string, string | undefined> = {}): string {
  const query = selectionQuery(values, extra).toString();
  return query === '' ? '/' : `/?${query}`;
}

/**
 * A file of a sync (`tenders.csv`, `deadlines.ics`, `changes.atom`) with a
 * selection's parameters, the sync itself in the path, and the file's key
 * last when the server gives one (`fileKey`: a token protects it).
 */
export function syncFilePath(sync: string, file: string, values: FormValues = new Map(), fileKey?: WebDeps['fileKey']): string {
  const rest = new Map(values);
  rest.delete('sync');
  const path = `/syncs/${encodeURIComponent(sync)}/${file}`;
  const query = selectionQuery(rest);
  if (fileKey !== undefined) query.append(...fileKey(path));
  const text = query.toString();
  return `${path}${text === '' ? '' : `?${text}`}`;
}

/** The same address for a calendar application: webcal:// on the host the browser asked (undefined without one). */
export function webcalUrl(host: string | undefined, path: string): string | undefined {
  return host === undefined || !/^[\w.:[\]-]+$/.test(host) ? undefined : `webcal://${host}${path}`;
}
