import { createHmac } from 'node:crypto';
import { get } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { downloadValidators, notModified } from '../../src/serve/download-validators.js';
import { answerDownload } from '../../src/serve/downloads.js';
import { Store as Sandbox } from '../../src/sandbox/store.js';
import { requestOrigin } from '../../src/serve/origin.js';
import { startServer } from '../../src/serve/server.js';
import { keyAdmits, subscriptionKey } from '../../src/serve/subscription-keys.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { filledCopy, sandboxDocs, syncInto } from '../support/local-copy.js';
import { postgres, POSTGRES_MISSING } from '../support/postgres.js';
import { testDir } from '../support/test-context.js';

const failTest = (err: unknown) => {
  throw err;
};

describe('subscription keys', () => {
  const path = '/syncs/deu/deadlines.ics';

  it('are HMAC-SHA256 of the path under the token, base64url', () => {
    expect(subscriptionKey('tok', path)).toBe(createHmac('sha256', 'tok').update(path).digest('base64url'));
    expect(subscriptionKey('tok', path)).toMatch(/^[\w-]{43}$/);
  });

  it('open GET and HEAD of their own /syncs/ path only; another token (rotated) or path, a changed key, or no key do not', () => {
    const key = subscriptionKey('tok', path);
    expect(keyAdmits('tok', 'GET', path, key)).toBe(true);
    expect(keyAdmits('tok', 'HEAD', path, key)).toBe(true);
    expect(keyAdmits('tok', 'POST', path, key)).toBe(false);
    expect(keyAdmits('rotated', 'GET', path, key)).toBe(false);
    expect(keyAdmits('tok', 'GET', '/syncs/deu/tenders.csv', key)).toBe(false);
    const changed = `${key[0] === 'A' ? 'B' : 'A'}${key.slice(1)}`;
    expect(keyAdmits('tok', 'GET', path, changed)).toBe(false);
    expect(keyAdmits('tok', 'GET', path, `${key}x`)).toBe(false);
    expect(keyAdmits('tok', 'GET', path, null)).toBe(false);
    const api = '/api/v1/syncs';
    expect(keyAdmits('tok', 'GET', api, subscriptionKey('tok', api))).toBe(false);
  });
});

describe('download validators', () => {
  const at = '2026-11-28T10:00:00.123Z';
  const v = downloadValidators(at, 'tenders.csv', 'deu', new URLSearchParams('q=roads&statuses=open'));

  it('a weak ETag of the sync, the file and the query (the key aside, the parameters in any order); Last-Modified the last change', () => {
    expect(v.etag).toMatch(/^W\/"[\w-]{27}"$/);
    expect(v.lastModified).toBe('Sat, 28 Nov 2026 10:00:00 GMT');
    expect(downloadValidators(at, 'tenders.csv', 'deu', new URLSearchParams('statuses=open&key=k&q=roads')).etag).toBe(v.etag);
    for (const other of [
      downloadValidators('2026-11-28T10:00:01.000Z', 'tenders.csv', 'deu', new URLSearchParams('q=roads&statuses=open')),
      downloadValidators(at, 'tenders.tsv', 'deu', new URLSearchParams('q=roads&statuses=open')),
      downloadValidators(at, 'tenders.csv', 'fra', new URLSearchParams('q=roads&statuses=open')),
      downloadValidators(at, 'tenders.csv', 'deu', new URLSearchParams('q=road&statuses=open')),
    ]) {
      expect(other.etag).not.toBe(v.etag);
    }
  });

  it('304 when If-None-Match names it (weak or strong form, in a list, or *), else when If-Modified-Since is not before the change', () => {
    expect(notModified(v, v.etag, undefined)).toBe(true);
    expect(notModified(v, v.etag.slice(2), undefined)).toBe(true);
    expect(notModified(v, `W/"other", ${v.etag}`, undefined)).toBe(true);
    expect(notModified(v, '*', undefined)).toBe(true);
    expect(notModified(v, 'W/"other"', v.lastModified)).toBe(false);
    expect(notModified(v, undefined, v.lastModified)).toBe(true);
    expect(notModified(v, undefined, 'Sat, 28 Nov 2026 09:59:59 GMT')).toBe(false);
    expect(notModified(v, undefined, 'not a date')).toBe(false);
    expect(notModified(v, undefined, undefined)).toBe(false);
  });
});

describe('the origin of subscription URLs', () => {
  it('is the Host the client used, https when a proxy says so; none for a Host that is no host', () => {
    expect(requestOrigin('127.0.0.1:8787', undefined)).toBe('http://127.0.0.1:8787');
    expect(requestOrigin('tenders.example.org', 'https')).toBe('https://tenders.example.org');
    expect(requestOrigin('[::1]:8787', 'http')).toBe('http://[::1]:8787');
    expect(requestOrigin('evil.example/"><script>', undefined)).toBeUndefined();
    expect(requestOrigin(undefined, undefined)).toBeUndefined();
  });
});

describe("a sync's last change (what its files' validators follow)", () => {
  it("moves with its runs that changed something and another sync's runs that wrote documents, never with a run that changed nothing", async () => {
    const { db, docs } = await filledCopy(40, 8);
    const lastChange = async (name: string) => {
      const store = await openStore(db, { mode: 'read' });
      try {
        return Date.parse((await store.getSync(name))!.lastChange);
      } finally {
        await store.close();
      }
    };
    const first = await lastChange('all');
    await syncInto(db, 'all', docs);
    expect(await lastChange('all')).toBe(first);
    // Another sync stores a newer document of a tender both hold: the file of `all` may have changed.
    const edited = [{ ...docs[0]!, title: 'A title changed upstream' }, ...docs.slice(1, 5)];
    await syncInto(db, 'other', edited);
    const byOther = await lastChange('all');
    expect(byOther).toBeGreaterThan(first);
    await syncInto(db, 'other', edited);
    expect(await lastChange('all')).toBe(byOther);
    await syncInto(db, 'all', docs.slice(1));
    expect(await lastChange('all')).toBeGreaterThan(byOther);
  });
});

describe('downloads over a copy, in-process', () => {
  it('streams a sync\'s file with its validators, 304 on revalidation, 400 for a bad parameter, 404 for an unknown sync or one outside --sync', async () => {
    const { db, docs } = await filledCopy(80, 3);
    await syncInto(db, 'other', docs.slice(0, 10));
    const store = await openStore(db, { mode: 'read' });
    const server = await startServer({ store, host: '127.0.0.1', port: 0, secret: 's', fault: failTest, syncs: ['all'] });
    try {
      const csv = await fetch(`${server.url}/syncs/all/tenders.csv?statuses=open`);
      expect(csv.status).toBe(200);
      expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
      expect(csv.headers.get('content-disposition')).toBe('attachment; filename="all-tenders.csv"');
      expect(csv.headers.get('cache-control')).toBe('no-cache');
      expect(csv.headers.get('x-content-type-options')).toBe('nosniff');
      const rows = (await csv.text()).trim().split('\n');
      expect(rows.length).toBe(1 + docs.filter((d) => d.status === 'open').length);
      const etag = csv.headers.get('etag')!;
      const again = await fetch(`${server.url}/syncs/all/tenders.csv?statuses=open`, { headers: { 'if-none-match': etag } });
      expect([again.status, await again.text(), again.headers.get('etag')]).toEqual([304, '', etag]);
      const since = await fetch(`${server.url}/syncs/all/tenders.csv?statuses=open`, { headers: { 'if-modified-since': csv.headers.get('last-modified')! } });
      expect(since.status).toBe(304);
      const bad = await fetch(`${server.url}/syncs/all/tenders.csv?publishedFrom=soon`);
      expect([bad.status, (await bad.json()).message]).toEqual([400, expect.stringMatching(/^publishedFrom takes/)]);
      const unknown = await fetch(`${server.url}/syncs/all/tenders.csv?limit=5`);
      expect([unknown.status, (await unknown.json()).message]).toEqual([400, expect.stringMatching(/^unknown parameter limit: this file takes q, /)]);
      const remind = await fetch(`${server.url}/syncs/all/deadlines.ics?remind=soon`);
      expect([remind.status, (await remind.json()).message]).toEqual([400, expect.stringMatching(/^remind takes/)]);
      const fts = await fetch(`${server.url}/syncs/all/tenders.ndjson?q=%22unclosed`);
      expect(fts.status).toBe(400);
      expect((await fetch(`${server.url}/syncs/nope/tenders.csv`)).status).toBe(404);
      expect((await fetch(`${server.url}/syncs/other/tenders.csv`)).status).toBe(404);
      expect((await fetch(`${server.url}/syncs/all/tenders.xlsx`)).status).toBe(404);
      const post = await fetch(`${server.url}/syncs/all/tenders.csv`, { method: 'POST' });
      expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
      const list = (await (await fetch(`${server.url}/api/v1/syncs`)).json()) as { syncs: { name: string; files: Record<string, string>; subscriptions: Record<string, string> }[] };
      expect(list.syncs.map((s) => s.name)).toEqual(['all']);
      expect(list.syncs[0]!.subscriptions).toEqual({
        calendar: `${server.url}/syncs/all/deadlines.ics`,
        webcal: `${server.url.replace('http:', 'webcal:')}/syncs/all/deadlines.ics`,
        feed: `${server.url}/syncs/all/changes.atom`,
      });
    } finally {
      await server.close();
      await store.close();
    }
  });

  it('a download reads through a reader of its own, released when the client goes away before the end', async () => {
    const { db } = await filledCopy(2000, 6);
    const store = await openStore(db, { mode: 'read' });
    let opened = 0;
    let closed!: () => void;
    const released = new Promise<void>((resolve) => (closed = resolve));
    const openReader = async (): Promise<Store> => {
      opened++;
      const reader = await openStore(db, { mode: 'read' });
      return new Proxy(reader, {
        get: (target, key) => {
          if (key === 'close') return async () => (await target.close(), closed());
          const value = Reflect.get(target, key, target) as unknown;
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
    };
    const warnings: string[] = [];
    const warn = (w: Error) => warnings.push(w.message);
    process.on('warning', warn);
    const server = await startServer({ store, host: '127.0.0.1', port: 0, secret: 's', fault: failTest, openReader });
    try {
      await new Promise<void>((resolve, reject) => {
        get(`${server.url}/syncs/all/tenders.ndjson`, (res) => {
          expect(res.statusCode).toBe(200);
          res.once('data', () => {
            res.destroy();
            resolve();
          });
        }).on('error', reject);
      });
      await released;
      expect(opened).toBe(1);
      // A whole file, read to its end, releases its reader too; thousands of waits for the client leave no listener behind.
      const whole = await fetch(`${server.url}/syncs/all/tenders.ndjson`);
      expect((await whole.text()).trim().split('\n')).toHaveLength(2000);
      expect(opened).toBe(2);
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', warn);
      await server.close();
      await store.close();
    }
  });
});

describe.each([
  { engine: 'SQLite', skip: false, location: async () => join(testDir(), 'copy.db') },
  { engine: 'PostgreSQL', skip: Boolean(POSTGRES_MISSING), location: async () => (await postgres()).createDatabase('snapshot') },
])('a download over $engine', ({ skip, location }) => {
  it.skipIf(skip)('is one snapshot: a sync that commits while it is read shows in the next download, not in this one', async () => {
    const db = await location();
    const docs = sandboxDocs(new Sandbox(1500, 9));
    await syncInto(db, 'all', docs);
    const store = await openStore(db, { mode: 'read' });
    const deps = { store, openReader: () => openStore(db, { mode: 'read' }), now: () => new Date() };
    const request = { method: 'GET', path: '/syncs/all/tenders.ndjson', query: new URLSearchParams('sortBy=deadline') };
    try {
      const chunks = ((await answerDownload(request, deps))!.body as AsyncIterable<string>)[Symbol.asyncIterator]();
      let text = String((await chunks.next()).value);
      const firstLines = text.split('\n').length;
      await syncInto(db, 'all', docs.slice(0, 100));
      for (let chunk = await chunks.next(); !chunk.done; chunk = await chunks.next()) text += String(chunk.value);
      const lines = text.trim().split('\n');
      // The first chunk was a batch; the rest was read after the commit, from the same snapshot.
      expect(firstLines).toBeLessThan(lines.length / 2);
      expect(lines.length).toBe(docs.filter((d) => typeof d.deadline === 'string').length);
      const after = (await answerDownload(request, deps))!.body;
      let next = '';
      for await (const chunk of after as AsyncIterable<string>) next += chunk;
      expect(next.trim().split('\n').length).toBeLessThanOrEqual(100);
    } finally {
      await store.close();
    }
  });
});
