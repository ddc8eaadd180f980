import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import { Store as Sandbox } from '../../src/sandbox/store.js';
import { startServer } from '../../src/serve/server.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { sandboxDocs, syncInto } from '../support/local-copy.js';
import { postgres, POSTGRES_MISSING } from '../support/postgres.js';
import { post } from '../support/serve.js';
import { testDir } from '../support/test-context.js';

const TENDERS = '/api/v1/tenders/search';
const failTest = (err: unknown) => {
  throw err;
};
type Page = { tenders: { id: string }[]; page: { total: { count: number; exact?: number } | null } };

/**
 * `store` as it is, but the first count asked of it or of a snapshot of it first runs `between`
 * (a sync's commit): the window between a page's rows and its total, opened on purpose.
 */
function commitBeforeFirstCount(store: Store, between: () => Promise<unknown>): Store {
  let pending: (() => Promise<unknown>) | undefined = between;
  const hooked = (s: Store): Store =>
    new Proxy(s, {
      get(target, prop) {
        if (prop === 'count') {
          return async (...args: Parameters<Store['count']>) => {
            const run = pending;
            pending = undefined;
            await run?.();
            return target.count(...args);
          };
        }
        if (prop === 'snapshot') return async () => hooked(await target.snapshot());
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  return hooked(store);
}

describe.each([
  { engine: 'SQLite', skip: false, location: async () => join(testDir(), 'copy.db') },
  { engine: 'PostgreSQL', skip: Boolean(POSTGRES_MISSING), location: async () => (await postgres()).createDatabase('page_snapshot') },
])('a search over $engine', ({ skip, location }) => {
  it.skipIf(skip)('is one snapshot: a sync that commits between the page and its count changes neither, and shows in the next answer', async () => {
    const db = await location();
    const docs = sandboxDocs(new Sandbox(80, 21));
    await syncInto(db, 'all', docs);
    const base = await openStore(db, { mode: 'read' });
    const store = commitBeforeFirstCount(base, () => syncInto(db, 'all', docs.slice(0, 30)));
    const server = await startServer({ store, host: '127.0.0.1', port: 0, secret: 's', fault: failTest });
    try {
      const during = parseJson((await post(server.url, TENDERS, { limit: 100, exactTotal: true })).text) as Page;
      expect(during.tenders).toHaveLength(80);
      expect(during.page.total).toEqual({ count: 80, capped: false, exact: 80 });
      const after = parseJson((await post(server.url, TENDERS, { limit: 100, exactTotal: true })).text) as Page;
      expect(after.tenders).toHaveLength(30);
      expect(after.page.total).toEqual({ count: 30, capped: false, exact: 30 });
    } finally {
      await server.close();
      await base.close();
    }
  });
});
