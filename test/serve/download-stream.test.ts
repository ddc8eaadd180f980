import { get, type IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { LocalSelection } from '../../src/model/local-selection.js';
import { startServer } from '../../src/serve/server.js';
import { sortPosition } from '../../src/store/columns.js';
import { openStore } from '../../src/store/open.js';
import type { SelectOptions, Store } from '../../src/store/store.js';
import { filledCopy } from '../support/local-copy.js';

const failTest = (err: unknown) => {
  throw err;
};

const idsOf = async (rows: AsyncIterable<Record<string, unknown>[]>): Promise<string[]> => {
  const ids: string[] = [];
  for await (const batch of rows) ids.push(...batch.map((t) => String(t.id)));
  return ids;
};

describe('a whole read of the SQLite copy (a download, an export)', () => {
  it('gives every selected tender once, in the order pages of the service give them, for each sort and order', async () => {
    const { db } = await filledCopy(1500, 11);
    const store = await openStore(db, { mode: 'read' });
    try {
      const sorts: LocalSelection[] = [
        { sync: 'all' },
        { sync: 'all', sortBy: 'publicationDate', sortOrder: 'asc' },
        { sync: 'all', sortBy: 'deadline' },
        { sync: 'all', sortBy: 'estimatedValue', sortOrder: 'desc' },
        { sync: 'all', statuses: ['open'], sortBy: 'estimatedValue', sortOrder: 'asc' },
      ];
      for (const selection of sorts) {
        // Pages of 100 continued from the last one's position: the planner's plan, as the API pages.
        const paged: string[] = [];
        let options: SelectOptions = { limit: 100 };
        for (;;) {
          const page: Record<string, unknown>[] = [];
          for await (const batch of store.select(selection, options)) page.push(...batch);
          paged.push(...page.map((t) => String(t.id)));
          if (page.length < 100) break;
          options = { limit: 100, from: sortPosition(page.at(-1)!, selection.sortBy ?? 'publicationDate')! };
        }
        const whole = await idsOf(store.select(selection));
        expect(whole.length).toBeGreaterThan(300); // more than a batch: the index is walked
        expect(whole).toEqual(paged);
      }
    } finally {
      await store.close();
    }
  });
});

describe('a download and a client that does not read', () => {
  it('reads the copy only as far as the client takes it: a paused client holds the server\'s reads, while another download runs to its end', async () => {
    const size = 40_000;
    const { db } = await filledCopy(size, 5);
    const store = await openStore(db, { mode: 'read' });
    // Tenders each download's reader has handed on, by the order the downloads opened them.
    const read: number[] = [];
    /** `store` counting the tenders its selects (its snapshots' included) hand on, in read[n]. */
    const counting = (store: Store, n: number): Store =>
      new Proxy(store, {
        get: (target, key) => {
          if (key === 'select')
            return async function* (selection: LocalSelection, options?: SelectOptions) {
              for await (const batch of target.select(selection, options)) {
                read[n]! += batch.length;
                yield batch;
              }
            };
          if (key === 'snapshot') return async () => counting(await target.snapshot(), n);
          const value = Reflect.get(target, key, target) as unknown;
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
    const openReader = async (): Promise<Store> => counting(await openStore(db, { mode: 'read', unmapped: true }), read.push(0) - 1);
    const server = await startServer({ store, host: '127.0.0.1', port: 0, secret: 's', fault: failTest, openReader });
    const path = `${server.url}/syncs/all/tenders.ndjson`;
    let paused: IncomingMessage | undefined;
    try {
      // The first client takes the answer's first bytes, then reads no more.
      paused = await new Promise<IncomingMessage>((resolve, reject) => {
        get(path, (res) => res.once('data', () => (res.pause(), resolve(res)))).on('error', reject);
      });
      // A second download of the whole file: the server's loop turns thousands of times meanwhile.
      const whole = await (await fetch(path)).text();
      expect(whole.trim().split('\n')).toHaveLength(size);
      expect(read[1]).toBe(size);
      // The paused one read no further than what the sockets' buffers hold: about 4 MB (Linux's largest
      // send buffer by default), some 9 500 tenders of about 430 bytes; without waiting for them, all.
      expect(read[0]).toBeGreaterThan(0);
      expect(read[0]).toBeLessThan(size / 2);
    } finally {
      paused?.destroy();
      await server.close();
      await store.close();
    }
  }, 120_000);
});
