import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import { startServer, type RunningServer } from '../../src/serve/server.js';
import { openStore } from '../../src/store/open.js';
import { filledCopy, syncInto } from '../support/local-copy.js';
import { post } from '../support/serve.js';

/** The reading threads' own file, as `npm run build` makes it (tenders serve over SQLite starts them from it). */
const WORKER = resolve('dist/serve-worker.cjs');
const failTest = (err: unknown) => {
  throw err;
};

/** What a client sees of one request: its status and body, the server's own host and port (in subscription URLs) as HOST. */
async function seen(server: RunningServer, method: 'GET' | 'POST', path: string, body?: unknown): Promise<[number, string]> {
  const host = new URL(server.url).host;
  if (method === 'POST') {
    const r = await post(server.url, path, body);
    return [r.status, r.text.replaceAll(host, 'HOST')];
  }
  const r = await fetch(server.url + path);
  return [r.status, (await r.text()).replaceAll(host, 'HOST')];
}

describe.skipIf(!existsSync(WORKER))('a SQLite copy answered on reading threads (answer-pool.ts; needs npm run build)', () => {
  it('answers every request as the server answers it in its own thread, errors included, and follows a sync', async () => {
    const { db, docs } = await filledCopy(60, 31);
    const store = await openStore(db, { mode: 'read' });
    // No kept answers: every request below goes to a thread.
    const common = { store, host: '127.0.0.1', port: 0, secret: 's', fault: failTest, memo: { maxBytes: 0, ttlMs: 0 } };
    const threads = await startServer({ ...common, threads: { file: WORKER, path: db, size: 2 } });
    const inline = await startServer(common);
    try {
      const first = parseJson((await post(threads.url, '/api/v1/tenders/search', { limit: 5 })).text) as { page: { nextCursor: string } };
      const buyer = (docs[0]!.buyer as { id: string }).id;
      const asked: ['GET' | 'POST', string, unknown?][] = [
        ['POST', '/api/v1/tenders/search', { limit: 5 }],
        ['POST', '/api/v1/tenders/search', { limit: 5, cursor: first.page.nextCursor }],
        ['POST', '/api/v1/tenders/search', { q: 'school', exactTotal: true }],
        ['POST', '/api/v1/tenders/search', { limit: 500 }],
        ['POST', '/api/v1/tenders/search', { q: '"unclosed' }],
        ['POST', '/api/v1/tenders/search', { cursor: 'forged' }],
        ['POST', '/api/v1/organisations/search', { limit: 3 }],
        ['POST', `/api/v1/organisations/${encodeURIComponent(buyer)}/tenders/search`, {}],
        ['POST', '/api/v1/organisations/NO-SUCH-ORG/tenders/search', {}],
        ['POST', '/api/v1/changes/search', {}],
        ['GET', `/api/v1/tenders/${encodeURIComponent(docs[0]!.id as string)}`],
        ['GET', '/api/v1/tenders/NO-SUCH-ID'],
        ['GET', '/api/v1/syncs'],
        ['GET', '/?q=school'],
        ['GET', '/syncs'],
        ['GET', '/changes'],
        ['GET', `/tenders/${encodeURIComponent(docs[1]!.id as string)}`],
      ];
      for (const [method, path, body] of asked) {
        const [status, text] = await seen(threads, method, path, body);
        expect([path, status, text]).toEqual([path, ...(await seen(inline, method, path, body))]);
      }
      expect((await seen(threads, 'GET', '/readyz'))[0]).toBe(200);

      // A thread reads the copy as it is now: a sync committed is in the next answer.
      await syncInto(db, 'all', docs.slice(0, 10));
      const after = parseJson((await post(threads.url, '/api/v1/tenders/search', { limit: 100 })).text) as { tenders: unknown[] };
      expect(after.tenders).toHaveLength(10);
    } finally {
      await threads.close();
      await inline.close();
      await store.close();
    }
  });

  it('a request past its time is 503 with Retry-After, and the next is answered by a new thread', async () => {
    const { db } = await filledCopy(3000, 32);
    const store = await openStore(db, { mode: 'read' });
    const server = await startServer({
      store,
      host: '127.0.0.1',
      port: 0,
      secret: 's',
      fault: failTest,
      memo: { maxBytes: 0, ttlMs: 0 },
      limits: { queryTimeoutMs: 1 },
      threads: { file: WORKER, path: db, size: 2 },
    });
    try {
      // Seventeen prefixes and an exact count: far longer than a millisecond on any machine.
      const q = 'a* OR b* OR c* OR d* OR e* OR f* OR g* OR h* OR i* OR l* OR m* OR n* OR o* OR p* OR r* OR s* OR t*';
      const slow = await post(server.url, '/api/v1/tenders/search', { q, exactTotal: true, limit: 100 });
      expect(slow.status).toBe(503);
      expect(slow.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(parseJson(slow.text)).toMatchObject({ message: expect.stringMatching(/--query-timeout/) });
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
      await store.close();
    }
  });
});

describe('a sync\'s changes as Atom, over a copy', () => {
  it('an entry per tender and run that changed it, the copy\'s tender in each', async () => {
    const { db, docs } = await filledCopy(30, 33);
    await syncInto(db, 'all', docs.slice(0, 25));
    const store = await openStore(db, { mode: 'read' });
    const server = await startServer({ store, host: '127.0.0.1', port: 0, secret: 's', fault: failTest });
    try {
      const r = await fetch(`${server.url}/syncs/all/changes.atom`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^application\/atom\+xml/);
      const feed = await r.text();
      expect(feed).toMatch(/^<\?xml[^>]*>\s*<feed xmlns="http:\/\/www\.w3\.org\/2005\/Atom">/);
      expect(feed.match(/<entry>/g)).toHaveLength(5);
      for (const doc of docs.slice(25)) expect(feed).toContain(`:gone:${encodeURIComponent(doc.id as string)}</id>`);
      expect(feed.trimEnd()).toMatch(/<\/feed>$/);
    } finally {
      await server.close();
      await store.close();
    }
  });
});
