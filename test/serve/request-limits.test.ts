import { once } from 'node:events';
import { copyFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import { followedCopy } from '../../src/serve/followed-copy.js';
import { startServer, type ServeOptions } from '../../src/serve/server.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { Store as Sandbox } from '../../src/sandbox/store.js';
import { filledCopy, sandboxDocs, syncInto } from '../support/local-copy.js';
import { post } from '../support/serve.js';
import { testDir } from '../support/test-context.js';

const TENDERS = '/api/v1/tenders/search';
const failTest = (err: unknown) => {
  throw err;
};
type Page = { tenders: { id: string }[]; page: { nextCursor: string | null } };

async function serving(store: Store, extra: Partial<ServeOptions>, body: (url: string) => Promise<void>): Promise<void> {
  const server = await startServer({ store, host: '127.0.0.1', port: 0, secret: 's', fault: failTest, ...extra });
  try {
    await body(server.url);
  } finally {
    await server.close();
    await store.close();
  }
}

/** What a raw socket that sends `text` and then nothing more is answered, once the server closes it. */
async function halfRequest(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  socket.write(text);
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
  await once(socket, 'close');
  return answer;
}

describe('the bounds of tenders serve', () => {
  it('at most --max-concurrency requests read at once: one more waits, then 503 with Retry-After; the slot comes back', async () => {
    const { db } = await filledCopy(40, 21);
    const real = await openStore(db, { mode: 'read' });
    // The first /readyz holds its slot until the test lets it go: a request that reads slowly.
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    let holds = true;
    // A request reads through a snapshot of the store: the snapshot's listSyncs is the one held.
    const holding = (s: Store): Store =>
      new Proxy(s, {
        get: (target, prop) =>
          prop === 'listSyncs' && holds
            ? async () => {
                holds = false;
                entered();
                await held;
                return target.listSyncs();
              }
            : prop === 'snapshot'
              ? async () => holding(await target.snapshot())
              : typeof Reflect.get(target, prop, target) === 'function'
                ? (Reflect.get(target, prop, target) as () => unknown).bind(target)
                : Reflect.get(target, prop, target),
      });
    const store = holding(real);
    await serving(store, { limits: { maxConcurrency: 1 } }, async (url) => {
      const slow = fetch(`${url}/readyz`);
      await inside;
      const refused = await post(url, TENDERS, { limit: 1 });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(parseJson(refused.text)).toEqual({ message: 'the server is busy (at most 1 requests at once): ask again' });
      // A request that does not read needs no slot.
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      letGo();
      expect((await slow).status).toBe(200);
      expect((await post(url, TENDERS, { limit: 1 })).status).toBe(200);
    });
  });

  it("a request's reads past --query-timeout are 503 with Retry-After, and the server goes on answering", async () => {
    const { db } = await filledCopy(300, 22);
    await serving(await openStore(db, { mode: 'read' }), { limits: { queryTimeoutMs: 1 } }, async (url) => {
      const r = await post(url, TENDERS, { q: 'a* OR e* OR i* OR o* OR s* OR t*', exactTotal: true, limit: 100, sortBy: 'estimatedValue' });
      expect(r.status, r.text).toBe(503);
      expect(r.headers.get('retry-after')).toBe('1');
      expect((parseJson(r.text) as { message: string }).message).toMatch(/longer than the server allows \(1 ms, --query-timeout\)/);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    });
  });

  it('headers or a body that do not arrive in time are 408 with a JSON message, and the connection closed', async () => {
    const { db } = await filledCopy(10, 23);
    await serving(await openStore(db, { mode: 'read' }), { headersTimeoutMs: 50, requestTimeoutMs: 100 }, async (url) => {
      for (const text of ['POST /api/v1/tenders/search HTTP/1.1\r\nhost: x\r\n', 'POST /api/v1/tenders/search HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 40\r\n\r\n{"li']) {
        const answer = await halfRequest(url, text);
        expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
        expect(answer).toMatch(/\r\nx-content-type-options: nosniff\r\n/);
        const body = answer.split('\r\n\r\n')[1]!;
        expect((parseJson(body) as { message: string }).message).toMatch(/did not arrive in time/);
      }
    });
  });

  it('a copy deleted is 503 until a new file is in place, then that one is served; a cursor of the old one pages on', async () => {
    const { db } = await filledCopy(80, 24);
    const kept = join(testDir(), 'kept.db');
    copyFileSync(db, kept);
    const open = () => openStore(db, { mode: 'read' });
    await serving(followedCopy(db, await open(), open), {}, async (url) => {
      const all = (parseJson((await post(url, TENDERS, { limit: 100 })).text) as Page).tenders.map((t) => t.id);
      const first = parseJson((await post(url, TENDERS, { limit: 10 })).text) as Page;
      rmSync(db);
      const away = await post(url, TENDERS, { limit: 10 });
      expect([away.status, away.headers.get('retry-after')]).toEqual([503, '5']);
      expect((parseJson(away.text) as { message: string }).message).toMatch(/not there/);
      expect((await fetch(`${url}/readyz`)).status).toBe(503);
      // Back as a new file (a restore; a first sync links a new copy in place the same way).
      copyFileSync(kept, db);
      const next = parseJson((await post(url, TENDERS, { limit: 10, cursor: first.page.nextCursor })).text) as Page;
      expect(next.tenders.map((t) => t.id)).toEqual(all.slice(10, 20));
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      // A different copy at the path: its tenders are served, without a restart.
      rmSync(db);
      await syncInto(db, 'other', sandboxDocs(new Sandbox(30, 99)));
      const ready = parseJson(await (await fetch(`${url}/readyz`)).text()) as { syncs: { name: string }[] };
      expect(ready.syncs.map((s) => s.name)).toEqual(['other']);
      expect((await post(url, TENDERS, { limit: 100 })).status).toBe(200);
    });
  });
});
