import type { ApiClient } from './client.js';
import { readPage, type Page } from './page.js';

export interface WalkOptions {
  path: string;
  /** The request body without `cursor`; sent identically for every page. */
  body: Record<string, unknown>;
  /** Start from this cursor instead of the first page. */
  cursor?: string;
  /** The consumer wants at most this many items: do not prefetch beyond them. */
  maxItems?: number;
  /** Request the next page before the consumer asks for it (default true; false for a single page). */
  prefetch?: boolean;
  /** The consumer's rule to end the walk after a page, asked before the next one is requested. */
  stopAfter?: (page: Page) => boolean;
  signal?: AbortSignal;
}

export interface FetchedPage extends Page {
  /** The cursor this page was requested with (undefined for the first page). */
  cursor: string | undefined;
}

/**
 * Walks a cursor-paged search as an async iterator of pages. The next page is
 * requested as soon as the current one is parsed (its cursor is known), so the
 * network overlaps with the consumer's writing; stopping the iteration aborts
 * any request still in flight.
 */
export async function* walkPages(client: Pick<ApiClient, 'post'>, opts: WalkOptions): AsyncGenerator<FetchedPage> {
  const controller = new AbortController();
  const stop = () => controller.abort(opts.signal?.reason);
  if (opts.signal?.aborted) stop();
  opts.signal?.addEventListener('abort', stop, { once: true });

  const fetchPage = (cursor: string | undefined): Promise<FetchedPage> => {
    const body = JSON.stringify(cursor === undefined ? opts.body : { ...opts.body, cursor });
    const pending = client
      .post(opts.path, body, controller.signal)
      .then(({ status, json }) => ({ ...readPage(json, status, opts.path), cursor }));
    pending.catch(() => undefined); // a prefetch may fail while nobody awaits it yet
    return pending;
  };

  let seen = 0;
  let pending: Promise<FetchedPage> | undefined = fetchPage(opts.cursor);
  try {
    while (pending) {
      const page: FetchedPage = await pending;
      pending = undefined;
      seen += page.items.length;
      const more = page.nextCursor !== null && !opts.stopAfter?.(page);
      const wantsMore = opts.prefetch !== false && (opts.maxItems === undefined || seen < opts.maxItems);
      if (more && wantsMore) {
        pending = fetchPage(page.nextCursor!);
        // undici writes the request on a later tick; let it go out now, so the
        // service works on the next page while the consumer writes this one.
        await new Promise((resolve) => setImmediate(resolve));
      }
      yield page;
      // The consumer asked for more although we guessed it would not.
      if (more && !pending) pending = fetchPage(page.nextCursor!);
    }
  } finally {
    opts.signal?.removeEventListener('abort', stop);
    if (pending) controller.abort();
  }
}
