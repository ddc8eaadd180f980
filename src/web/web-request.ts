import type { Store } from '../store/store.js';

/**
 * What the page layer takes from and gives to the HTTP layer that mounts it
 * (`tenders serve`): plain values, so node:http, Hono or a test can call
 * handleWebRequest (./web-handler.ts) with a few lines (docs/web.md).
 */
export interface WebRequest {
  method: string;
  /** The URL's path, percent-encoded as it came (`/tenders/T-1`). */
  path: string;
  query: URLSearchParams;
  /** The Host header as the browser sent it, for the absolute `webcal://` subscription links; without it they are left out. */
  host?: string;
}

export interface WebResponse {
  status: number;
  headers: Record<string, string>;
  body: string | AsyncIterable<string>;
}

/** The reads the pages make of the copy: the Store's, opened (read-only) and closed by the caller. */
export type WebStore = Pick<Store, 'select' | 'count' | 'changes' | 'listSyncs' | 'getTender'>;

export interface WebDeps {
  store: WebStore;
  /** The time the page counts from (deadlines' countdowns, "since 7 days"). */
  now(): Date;
}
