import type { Store } from '../store/store.js';
import type { SyncScope } from '../store/sync-scope.js';

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
export type WebStore = Pick<Store, 'select' | 'count' | 'searchChanges' | 'listSyncs' | 'getTender'>;

export interface WebDeps {
  store: WebStore;
  /** The syncs served (`tenders serve --sync`): the pages show only their tenders, changes and syncs; all when undefined. */
  syncs?: SyncScope;
  /** The time the page counts from (deadlines' countdowns, "since 7 days"). */
  now(): Date;
  /**
   * The query parameter (name, value) that opens a file under /syncs/ without
   * the server's token: its subscription key, when a token protects the
   * server. The page's links to a sync's files carry it, so a calendar or feed
   * reader given them reads them; none without a token.
   */
  fileKey?(path: string): readonly [name: string, value: string];
}
