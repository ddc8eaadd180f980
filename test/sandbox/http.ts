import { expect } from 'vitest';

export const TENDERS = '/api/v1/tenders/search';
export const ORGS = '/api/v1/organisations/search';
export const MUTATE = '/__sandbox/mutate';
export const orgTenders = (id: string) => `/api/v1/organisations/${encodeURIComponent(id)}/tenders/search`;

export type Item = Record<string, unknown>;
export interface Page {
  page: { nextCursor: string | null; total: { count: number; capped: boolean } | null };
  [results: string]: unknown;
}

export async function post(url: string, path: string, body: unknown) {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) as Page };
}

/** The results array of a page, whatever its key. */
export function results(page: Page): Item[] {
  const arrays = Object.values(page).filter(Array.isArray);
  expect(arrays).toHaveLength(1);
  return arrays[0] as Item[];
}

/**
 * Every item of a full cursor walk, and the number of pages it took; checks the
 * total is on the first page only. `between` runs after each page.
 */
export async function walk(url: string, path: string, body: Item, between?: () => void) {
  const items: Item[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await post(url, path, cursor ? { ...body, cursor } : body);
    expect(res.status, res.text).toBe(200);
    const page = res.json();
    if (pages++ === 0) expect(page.page.total).not.toBeNull();
    else expect(page.page.total).toBeNull();
    items.push(...results(page));
    cursor = page.page.nextCursor;
    between?.();
  } while (cursor);
  return { items, pages };
}

export const ids = (items: unknown[]) => items.map((t) => (t as { id: string }).id);
