import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { handleWebRequest } from '../../src/web/web-handler.js';
import type { WebResponse } from '../../src/web/web-request.js';

/** A page as a test reads it: status, headers and the whole body. */
export interface Page {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export async function bodyText(body: WebResponse['body']): Promise<string> {
  if (typeof body === 'string') return body;
  let text = '';
  for await (const chunk of body) text += chunk;
  return text;
}

/** The page layer over a copy opened read-only, as `tenders serve` opens it; `now` fixed for countdowns; `syncs` the served ones (`--sync`). */
export async function webClient(db: string, now = new Date('2026-12-01T12:00:00Z'), syncs?: string[]) {
  const store: Store = await openStore(db, { mode: 'read' });
  const get = async (target: string, method = 'GET', host = '127.0.0.1:8787'): Promise<Page | undefined> => {
    const url = new URL(target, 'http://page.test');
    const response = await handleWebRequest({ method, path: url.pathname, query: url.searchParams, host }, { store, syncs, now: () => now });
    return response && { status: response.status, headers: response.headers, body: await bodyText(response.body) };
  };
  return { store, get, close: () => store.close() };
}

/** The tender ids a results page links to, in its order. */
export function resultIds(body: string): string[] {
  return [...body.matchAll(/<td class="title"><a href="\/tenders\/([^"]+)">/g)].map((m) => decodeURIComponent(m[1]!));
}

/** The href of the link with this rel (Next, Previous), entities undone. */
export function relLink(body: string, rel: 'next' | 'prev'): string | undefined {
  const href = new RegExp(`<a rel="${rel}" href="([^"]+)"`).exec(body)?.[1];
  return href?.replaceAll('&amp;', '&');
}
