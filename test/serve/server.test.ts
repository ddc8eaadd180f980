import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import { startServer } from '../../src/serve/server.js';
import { openStore } from '../../src/store/open.js';
import { filledCopy, syncInto } from '../support/local-copy.js';
import { post } from '../support/serve.js';

const TENDERS = '/api/v1/tenders/search';
/** A fault inside the server fails the test (its answer would be a 500). */
const failTest = (err: unknown) => {
  throw err;
};
type Page = { tenders: { id: string }[]; page: { nextCursor: string | null; total: unknown } };

describe('the serve routes over a copy', () => {
  it('a cursor handed out before a sync keeps paging after it: none twice, none skipped that stayed', async () => {
    const { db, docs } = await filledCopy(300, 11);
    const store = await openStore(db, { mode: 'read' });
    const server = await startServer({ store, host: '127.0.0.1', port: 0, secret: 's', fault: failTest });
    try {
      const body = { sortBy: 'deadline', limit: 10 };
      const first = parseJson((await post(server.url, TENDERS, body)).text) as Page;
      const before = (parseJson((await post(server.url, TENDERS, { ...body, limit: 100 })).text) as Page).tenders.map((t) => t.id);
      expect(first.tenders.map((t) => t.id)).toEqual(before.slice(0, 10));
      // The sync removes the page's last tender (the cursor's own) and two of the next page.
      const removed = new Set([before[9], before[11], before[14]]);
      await syncInto(db, 'all', docs.filter((d) => !removed.has(d.id as string)));
      const second = parseJson((await post(server.url, TENDERS, { ...body, cursor: first.page.nextCursor })).text) as Page;
      expect(second.page.total).toBeNull();
      expect(second.tenders.map((t) => t.id)).toEqual(before.slice(10).filter((id) => !removed.has(id)).slice(0, 10));
    } finally {
      await server.close();
      await store.close();
    }
  });

  it('a cursor of another sort, or another server, is 400 invalid cursor', async () => {
    const { db } = await filledCopy(60, 12);
    const store = await openStore(db, { mode: 'read' });
    const one = await startServer({ store, host: '127.0.0.1', port: 0, secret: 'one', fault: failTest });
    const two = await startServer({ store, host: '127.0.0.1', port: 0, secret: 'two', fault: failTest });
    try {
      const { page } = parseJson((await post(one.url, TENDERS, { limit: 5 })).text) as Page;
      expect((await post(one.url, TENDERS, { limit: 5, cursor: page.nextCursor })).status).toBe(200);
      for (const [url, body] of [
        [one.url, { limit: 5, sortOrder: 'asc', cursor: page.nextCursor }],
        [one.url, { limit: 5, q: 'school', cursor: page.nextCursor }],
        [two.url, { limit: 5, cursor: page.nextCursor }],
      ] as const) {
        const r = await post(url, TENDERS, body);
        expect([r.status, r.text]).toEqual([400, '{"message":"invalid cursor"}']);
      }
    } finally {
      await one.close();
      await two.close();
      await store.close();
    }
  });
});

describe('a slow client', () => {
  /** What the server answers on a raw connection that sends `text` and then nothing more. */
  async function answerTo(url: string, text: string): Promise<string> {
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.write(text);
    const [chunk] = (await once(socket, 'data')) as [Buffer];
    socket.destroy();
    return chunk.toString();
  }

  it('cannot hold a connection: headers late or a body late is 408', async () => {
    const { db } = await filledCopy(20, 13);
    const store = await openStore(db, { mode: 'read' });
    const server = await startServer({ store, host: '127.0.0.1', port: 0, secret: 's', fault: failTest, headersTimeoutMs: 200, requestTimeoutMs: 400 });
    try {
      expect(await answerTo(server.url, 'POST /api/v1/tenders/search HTTP/1.1\r\nHost: x\r\n')).toMatch(/^HTTP\/1\.1 408 /);
      const body = 'POST /api/v1/tenders/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"limit":';
      expect(await answerTo(server.url, body)).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      await server.close();
      await store.close();
    }
  });
});

describe('the other routes', () => {
  it('organisations are the served buyers with their counts, paged by name then id; health, errors and the token as documented', async () => {
    const { db, sandbox } = await filledCopy(200, 14);
    const store = await openStore(db, { mode: 'read' });
    const server = await startServer({ store, host: '127.0.0.1', port: 0, secret: 's', fault: failTest, token: 'tok' });
    const auth = { authorization: 'Bearer tok' };
    try {
      const orgs: unknown[] = [];
      let cursor: string | null | undefined;
      do {
        const r = parseJson((await post(server.url, '/api/v1/organisations/search', { limit: 3, ...(cursor ? { cursor } : {}) }, auth)).text) as {
          organisations: unknown[];
          page: { nextCursor: string | null; total: unknown };
        };
        if (cursor === undefined) expect(r.page.total).toMatchObject({ capped: false });
        orgs.push(...r.organisations);
        cursor = r.page.nextCursor;
      } while (cursor);
      const expected = sandbox.orgTruth(() => true).filter((o) => o.tenderCount > 0);
      expect(orgs).toEqual(expected);
      const unknownOrg = await post(server.url, '/api/v1/organisations/ORG-NONE/tenders/search', {}, auth);
      expect([unknownOrg.status, unknownOrg.text]).toEqual([404, '{"message":"organisation not found: ORG-NONE"}']);
      expect((await post(server.url, '/api/v1/organisations/search', {})).status).toBe(401);
      expect((await post(server.url, '/nowhere', {}, auth)).status).toBe(404);
      expect((await post(server.url, '/healthz', {})).headers.get('allow')).toBe('GET');
      expect(await (await fetch(`${server.url}/readyz`)).json()).toMatchObject({ status: 'ready', syncs: [{ name: 'all' }] });
      const bad = await post(server.url, '/api/v1/tenders/search', { exactTotal: 'yes' }, auth);
      expect([bad.status, bad.text]).toEqual([400, '{"message":"exactTotal must be true or false"}']);
      const sandboxOnly = await post(server.url, '/api/v1/tenders/search', { query: 'school' }, auth);
      expect(sandboxOnly.status).toBe(400);
    } finally {
      await server.close();
      await store.close();
    }
  });
});
