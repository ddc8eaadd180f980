import { createHash } from 'node:crypto';
import type { Client } from './client.js';
import { CursorCycleError } from './errors.js';
import { readPage, type Page } from './page.js';
import { stringifyExact } from '../model/exact-json.js';

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
  /** The number of the first page fetched (a resumed walk goes on counting), for messages. */
  firstPage?: number;
  /** Which chain of a --parallel walk this is ("country DEU"), for messages. */
  chain?: string;
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
 * any request still in flight. A cursor that comes back (a service paging in
 * a loop) ends the walk with CursorCycleError instead of paging forever.
 */
export async function* walkPages(client: Pick<Client, 'post'>, opts: WalkOptions): AsyncGenerator<FetchedPage> {
  const controller = new AbortController();
  const stop = () => controller.abort(opts.signal?.reason);
  if (opts.signal?.aborted) stop();
  opts.signal?.addEventListener('abort', stop, { once: true });

  const cursorsUsed = new CursorMemory();
  const fetchPage = (cursor: string | undefined, pageNumber: number): Promise<FetchedPage> => {
    if (cursor !== undefined) cursorsUsed.remember(cursor, pageNumber);
    const body = stringifyExact(cursor === undefined ? opts.body : { ...opts.body, cursor });
    const pending = client
      .post(opts.path, body, controller.signal)
      .then(({ status, json }) => ({ ...readPage(json, status, opts.path), cursor }));
    pending.catch(() => undefined); // a prefetch may fail while nobody awaits it yet
    return pending;
  };

  let seen = 0;
  let pageNumber = opts.firstPage ?? 1;
  let pending: Promise<FetchedPage> | undefined = fetchPage(opts.cursor, pageNumber);
  try {
    while (pending) {
      const page: FetchedPage = await pending;
      pending = undefined;
      seen += page.items.length;
      const more = page.nextCursor !== null && !opts.stopAfter?.(page);
      const wantsMore = opts.prefetch !== false && (opts.maxItems === undefined || seen < opts.maxItems);
      const current = pageNumber++;
      const follow = () => {
        const earlier = cursorsUsed.pageOf(page.nextCursor!);
        if (earlier !== undefined) throw new CursorCycleError(opts.path, current, earlier, opts.chain);
        return fetchPage(page.nextCursor!, current + 1);
      };
      if (more && wantsMore) {
        // Checked before the page is delivered, so a checkpoint never points into the loop.
        pending = follow();
        // undici writes the request on a later tick; let it go out now, so the
        // service works on the next page while the consumer writes this one.
        await new Promise((resolve) => setImmediate(resolve));
      }
      yield page;
      // The consumer asked for more although we guessed it would not.
      if (more && !pending) pending = follow();
    }
  } finally {
    opts.signal?.removeEventListener('abort', stop);
    if (pending) controller.abort();
  }
}

/**
 * The cursors a walk has followed, as 64-bit hashes (a few dozen bytes a page
 * whatever the cursor's length), with the page each one fetched.
 */
class CursorMemory {
  readonly #pages = new Map<bigint, number>();

  remember(cursor: string, page: number): void {
    this.#pages.set(hash(cursor), page);
  }

  /** The page `cursor` fetched, if the walk has used it. */
  pageOf(cursor: string): number | undefined {
    return this.#pages.get(hash(cursor));
  }
}

function hash(cursor: string): bigint {
  return createHash('sha256').update(cursor).digest().readBigUInt64BE();
}
