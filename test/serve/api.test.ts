import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import { RawNumber } from '../../src/model/exact-json.js';
import { startServer } from '../../src/serve/server.js';
import { openStore } from '../../src/store/open.js';
import { filledCopy, syncInto } from '../support/local-copy.js';
import { post } from '../support/serve.js';

const CHANGES = '/api/v1/changes/search';
const failTest = (err: unknown) => {
  throw err;
};
type Change = { kind: string; field: string | null; at: string; sync: string; tenderId: string; old?: unknown; new?: unknown };
type ChangePage = { changes: Change[]; page: { nextCursor: string | null; total: { count: number; capped: boolean } | null } };

/** Every change of `body`, page after page; `between` runs after the first page. */
async function walkChanges(url: string, body: Record<string, unknown>, between?: () => Promise<void>): Promise<Change[]> {
  const all: Change[] = [];
  let cursor: string | null = null;
  do {
    const r = await post(url, CHANGES, { ...body, ...(cursor ? { cursor } : {}) });
    expect(r.status, r.text).toBe(200);
    const page = parseJson(r.text) as ChangePage;
    all.push(...page.changes);
    if (cursor === null) await between?.();
    cursor = page.page.nextCursor;
  } while (cursor);
  return all;
}

describe('the tender and changes API over a copy', () => {
  it('a tender with its story (exact numbers), 404 for an id the copy does not hold; changes newest first, paged while a sync writes', async () => {
    const { db, docs } = await filledCopy(60, 21);
    const [a, b] = [docs[0]!, docs[1]!];
    // Run 2: a's value and b's title change, the last tender goes.
    // Parsed as a walk parses the service's answer, so the stored text keeps every digit.
    const changedA = parseJson(JSON.stringify(a).replace(/"estimatedValue":\{[^}]*\}/, '"estimatedValue":{"amount":12345678901234567890,"currency":"EUR"}')) as Record<string, unknown>;
    const second = docs.slice(0, -1).map((d) => (d === a ? changedA : d === b ? { ...d, title: 'New title' } : d));
    await syncInto(db, 'all', second);
    await syncInto(db, 'other', second.slice(0, 5));
    const store = await openStore(db, { mode: 'read' });
    const server = await startServer({ store, host: '127.0.0.1', port: 0, secret: 's', fault: failTest });
    try {
      const r = await fetch(`${server.url}/api/v1/tenders/${encodeURIComponent(a.id as string)}`);
      const text = await r.text();
      expect(r.status, text).toBe(200);
      expect(text).toContain('"amount":12345678901234567890');
      const story = parseJson(text) as { tender: { id: string }; firstSeen: string; goneAt: null; history: Change[] };
      expect(story.tender.id).toBe(a.id);
      expect(story.goneAt).toBeNull();
      expect(story.history.map((h) => [h.kind, h.field, h.sync])).toEqual([
        ['changed', 'estimatedValue.amount', 'all'],
        ['changed', 'estimatedValue.amountEur', 'all'],
      ]);
      const gone = parseJson(await (await fetch(`${server.url}/api/v1/tenders/${encodeURIComponent(docs.at(-1)!.id as string)}`)).text()) as { goneAt: string | null; history: Change[] };
      expect(gone.goneAt).not.toBeNull();
      expect(gone.history.map((h) => h.kind)).toEqual(['gone']);
      for (const id of ["x' OR 1=1 --", 'a/b', '%E0%A4%A']) {
        const missing = await fetch(`${server.url}/api/v1/tenders/${id === '%E0%A4%A' ? id : encodeURIComponent(id)}`);
        expect([missing.status, ((await missing.json()) as { message: string }).message]).toEqual([404, `tender not found: ${id}`]);
      }
      expect((await post(server.url, `/api/v1/tenders/${encodeURIComponent(a.id as string)}`, {})).status).toBe(405);

      // All changes: the gone one, the two changed, newest first by (at, row); with tenderId and exact values.
      const first = parseJson((await post(server.url, CHANGES, { limit: 1 })).text) as ChangePage;
      expect(first.page.total).toEqual({ count: 4, capped: false });
      const all = await walkChanges(server.url, { limit: 1 }, async () => {
        // A sync committing after the first page adds changes before it: the walk goes on unshaken.
        await syncInto(db, 'all', second.slice(0, -1));
      });
      expect(all.map((c) => `${c.kind} ${c.tenderId} ${c.field}`).sort()).toEqual(
        [`gone ${docs.at(-1)!.id} null`, `changed ${b.id} title`, `changed ${a.id} estimatedValue.amount`, `changed ${a.id} estimatedValue.amountEur`].sort(),
      );
      expect(all.map((c) => c.at)).toEqual(all.map((c) => c.at).sort().reverse());
      const amount = all.find((c) => c.field === 'estimatedValue.amount')!;
      expect([amount.old, amount.new]).toEqual([(a.estimatedValue as { amount: unknown }).amount, new RawNumber('12345678901234567890')]);
      // The new sync's run is there now, first.
      const now = parseJson((await post(server.url, CHANGES, { kind: ['gone'] })).text) as ChangePage;
      expect(now.changes.map((c) => c.tenderId)).toEqual([second.at(-1)!.id, docs.at(-1)!.id]);
      const one = parseJson((await post(server.url, CHANGES, { tenderId: b.id, kind: 'changed', since: '2000-01-01' })).text) as ChangePage;
      expect(one.changes.map((c) => [c.field, c.old, c.new])).toEqual([['title', b.title, 'New title']]);
      expect((parseJson((await post(server.url, CHANGES, { since: '2999-01-01' })).text) as ChangePage).changes).toEqual([]);
      for (const [body, message] of [
        [{ limit: 0 }, 'limit must be an integer between 1 and 100'],
        [{ cursor: 'forged.cursor' }, 'invalid cursor'],
        [{ kind: 'moved' }, 'kind must be new, changed or gone, or a list of them'],
        [{ since: 'soon' }, expect.stringMatching(/^since takes/)],
        [{ sync: 3 }, 'sync must be a string'],
        [{ other: 1 }, 'unknown field: other'],
        [{ limit: 1, kind: 'gone', cursor: first.page.nextCursor }, 'invalid cursor'],
      ] as const) {
        const bad = await post(server.url, CHANGES, body);
        expect([bad.status, (parseJson(bad.text) as { message: string }).message]).toEqual([400, message]);
      }
      expect((await post(server.url, CHANGES, 'not json')).status).toBe(400);
      expect((await post(server.url, CHANGES, 'x', { 'content-type': 'text/plain' })).status).toBe(415);
    } finally {
      await server.close();
      await store.close();
    }
  });

  it('--sync scopes searches, organisations, a tender, changes and readyz', async () => {
    const { db, docs } = await filledCopy(40, 22);
    await syncInto(db, 'small', docs.slice(0, 4));
    await syncInto(db, 'small', docs.slice(0, 3));
    await syncInto(db, 'all', docs.slice(0, -1));
    const store = await openStore(db, { mode: 'read' });
    const server = await startServer({ store, host: '127.0.0.1', port: 0, secret: 's', fault: failTest, syncs: ['small'] });
    try {
      const found = parseJson((await post(server.url, '/api/v1/tenders/search', { limit: 100 })).text) as { tenders: { id: string; buyer: { id: string } }[] };
      expect(found.tenders.map((t) => t.id).sort()).toEqual(docs.slice(0, 3).map((d) => d.id as string).sort());
      const orgs = parseJson((await post(server.url, '/api/v1/organisations/search', { limit: 100 })).text) as { organisations: { tenderCount: number }[] };
      expect(orgs.organisations.reduce((n, o) => n + o.tenderCount, 0)).toBe(3);
      expect((await fetch(`${server.url}/api/v1/tenders/${encodeURIComponent(docs[0]!.id as string)}`)).status).toBe(200);
      expect((await fetch(`${server.url}/api/v1/tenders/${encodeURIComponent(docs[10]!.id as string)}`)).status).toBe(404);
      const changes = parseJson((await post(server.url, CHANGES, {})).text) as ChangePage;
      expect(changes.changes.map((c) => [c.kind, c.sync, c.tenderId])).toEqual([['gone', 'small', docs[3]!.id]]);
      expect((parseJson((await post(server.url, CHANGES, { sync: 'all' })).text) as ChangePage).changes).toEqual([]);
      expect(await (await fetch(`${server.url}/readyz`)).json()).toMatchObject({ syncs: [{ name: 'small' }] });
    } finally {
      await server.close();
      await store.close();
    }
  });

  it('--cors answers a preflight and names the allowed origin; JSON access log; without --cors OPTIONS is 405', async () => {
    const { db } = await filledCopy(10, 23);
    const store = await openStore(db, { mode: 'read' });
    const lines: string[] = [];
    const server = await startServer({ store, host: '127.0.0.1', port: 0, secret: 's', fault: failTest, token: 't', cors: ['https://dash.example'], logFormat: 'json', log: (l) => lines.push(l) });
    const plain = await startServer({ store, host: '127.0.0.1', port: 0, secret: 's', fault: failTest });
    try {
      const pre = await fetch(`${server.url}/api/v1/tenders/search`, { method: 'OPTIONS', headers: { origin: 'https://dash.example', 'access-control-request-method': 'POST' } });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('https://dash.example');
      expect(pre.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
      expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
      const r = await post(server.url, '/api/v1/tenders/search', {}, { origin: 'https://dash.example', authorization: 'Bearer t' });
      expect([r.status, r.headers.get('access-control-allow-origin')]).toEqual([200, 'https://dash.example']);
      const other = await post(server.url, '/api/v1/tenders/search', {}, { origin: 'https://evil.example', authorization: 'Bearer t' });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      await fetch(`${server.url}/healthz?key=secret-key`);
      const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(logged.at(-1)).toMatchObject({ method: 'GET', path: '/healthz', status: 200, bytes: 15 });
      expect(Object.keys(logged.at(-1)!)).toEqual(['time', 'method', 'path', 'status', 'bytes', 'ms']);
      expect(lines.join('\n')).not.toContain('secret-key');
      const none = await fetch(`${plain.url}/api/v1/tenders/search`, { method: 'OPTIONS', headers: { origin: 'https://dash.example' } });
      expect([none.status, none.headers.get('access-control-allow-origin')]).toEqual([405, null]);
      const noCors = await post(plain.url, '/api/v1/tenders/search', {}, { origin: 'https://dash.example' });
      expect(noCors.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await server.close();
      await plain.close();
      await store.close();
    }
  });
});
