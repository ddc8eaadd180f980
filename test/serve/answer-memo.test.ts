import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import { AnswerMemo, coalescedReads } from '../../src/serve/answer-memo.js';
import { startServer } from '../../src/serve/server.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { filledCopy, syncInto } from '../support/local-copy.js';
import { post } from '../support/serve.js';

const ok = (body: string) => async () => ({ status: 200, body });

describe('AnswerMemo', () => {
  it('keeps a 200 for its key until the generation changes', async () => {
    const memo = new AnswerMemo({ maxBytes: 1 << 20, ttlMs: 60_000 });
    expect(await memo.answer('g1', 'k', ok('one'))).toEqual({ status: 200, body: 'one' });
    expect(await memo.answer('g1', 'k', ok('two'))).toEqual({ status: 200, body: 'one' });
    expect(await memo.answer('g1', 'other', ok('three'))).toEqual({ status: 200, body: 'three' });
    expect(await memo.answer('g2', 'k', ok('four'))).toEqual({ status: 200, body: 'four' });
    expect(memo.bytes).toBe('four'.length + 1);
  });

  it('makes an answer again once it is older than the time limit', async () => {
    let now = 0;
    const memo = new AnswerMemo({ maxBytes: 1 << 20, ttlMs: 1000 }, () => now);
    await memo.answer('g', 'k', ok('old'));
    now = 1000;
    expect((await memo.answer('g', 'k', ok('new'))).body).toBe('old');
    now = 1001;
    expect((await memo.answer('g', 'k', ok('new'))).body).toBe('new');
  });

  it('keeps neither errors nor failures nor bodies that are not text, nor anything with no room', async () => {
    const memo = new AnswerMemo({ maxBytes: 1 << 20, ttlMs: 60_000 });
    await memo.answer('g', 'a', async () => ({ status: 400, body: 'bad' }));
    expect((await memo.answer('g', 'a', ok('good'))).body).toBe('good');
    await expect(memo.answer('g', 'b', () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect((await memo.answer('g', 'b', ok('fine'))).body).toBe('fine');
    const stream = { status: 200, body: ['a', 'b'] };
    await memo.answer('g', 'c', async () => stream);
    expect((await memo.answer('g', 'c', ok('text'))).body).toBe('text');
    const none = new AnswerMemo({ maxBytes: 0, ttlMs: 60_000 });
    await none.answer('g', 'k', ok('one'));
    expect((await none.answer('g', 'k', ok('two'))).body).toBe('two');
  });

  it('stays within its bytes, dropping the least recently used first, and keeps no answer above an eighth of them', async () => {
    const memo = new AnswerMemo({ maxBytes: 80, ttlMs: 60_000 });
    for (const key of ['a', 'b', 'c', 'd', 'e']) await memo.answer('g', key, ok('x'.repeat(9)));
    expect(memo.bytes).toBe(50);
    await memo.answer('g', 'a', ok('used again'));
    for (const key of ['f', 'g', 'h', 'i']) await memo.answer('g', key, ok('x'.repeat(9)));
    expect(memo.bytes).toBeLessThanOrEqual(80);
    expect((await memo.answer('g', 'a', ok('made again'))).body).toBe('x'.repeat(9));
    expect((await memo.answer('g', 'b', ok('made again'))).body).toBe('made again');
    await memo.answer('g', 'big', ok('x'.repeat(20)));
    expect((await memo.answer('g', 'big', ok('small'))).body).toBe('small');
  });

  it('makes an answer once for the requests that ask for it at the same time', async () => {
    const memo = new AnswerMemo({ maxBytes: 1 << 20, ttlMs: 60_000 });
    let made = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const make = async () => {
      made++;
      await gate;
      return { status: 200, body: 'once' };
    };
    const asked = [memo.answer('g', 'k', make), memo.answer('g', 'k', make), memo.answer('g', 'k', make)];
    release();
    expect((await Promise.all(asked)).map((a) => a.body)).toEqual(['once', 'once', 'once']);
    expect(made).toBe(1);
  });
});

describe('coalescedReads', () => {
  it('answers a request that asks during a read with the next read, shared by all who asked meanwhile', async () => {
    const gates: (() => void)[] = [];
    let reads = 0;
    const read = coalescedReads(async () => {
      const n = ++reads;
      await new Promise<void>((resolve) => gates.push(resolve));
      return n;
    });
    const first = read();
    const during = [read(), read(), read()];
    expect(reads).toBe(1);
    gates.shift()!();
    expect(await first).toBe(1);
    // The next read began once the first ended: after every one of these asked.
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(reads).toBe(2);
    gates.shift()!();
    expect(await Promise.all(during)).toEqual([2, 2, 2]);
    const later = read();
    gates.shift()!();
    expect(await later).toBe(3);
  });

  it('a failed read fails the requests that shared it, and the next ask reads again', async () => {
    let fail = true;
    const read = coalescedReads(async () => {
      if (fail) throw new Error('away');
      return 'back';
    });
    await expect(read()).rejects.toThrow('away');
    fail = false;
    expect(await read()).toBe('back');
  });
});

/** The store, counting the answers that read it (each takes one snapshot). */
function counted(store: Store): { store: Store; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (prop === 'snapshot') reads++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, reads: () => reads };
}

describe('tenders serve keeps answers until the copy changes', () => {
  it('the same search is read from the copy once, and again after a sync commits or a sync is forgotten', async () => {
    const { db, docs } = await filledCopy(40, 21);
    await syncInto(db, 'other', docs.slice(0, 5));
    const base = await openStore(db, { mode: 'read' });
    const { store, reads } = counted(base);
    const server = await startServer({ store, host: '127.0.0.1', port: 0, secret: 's', fault: (err) => { throw err; } });
    try {
      const ask = async () => parseJson((await post(server.url, '/api/v1/tenders/search', { limit: 100 })).text) as { tenders: { id: string }[] };
      const first = await ask();
      expect(first.tenders).toHaveLength(40);
      expect(await ask()).toEqual(first);
      expect(reads()).toBe(1);
      // The page shares the generation: its first view reads, its second is kept.
      const page = async () => (await fetch(`${server.url}/?q=`)).text();
      expect(await page()).toBe(await page());
      const afterPage = reads();

      await syncInto(db, 'all', docs.slice(0, 30));
      const synced = await ask();
      expect(synced.tenders.map((t) => t.id).sort()).toEqual(docs.slice(0, 30).map((d) => d.id as string).sort());
      expect(reads()).toBe(afterPage + 1);

      const writer = await openStore(db, { mode: 'write' });
      await writer.forget('all');
      await writer.close();
      expect((await ask()).tenders.map((t) => t.id).sort()).toEqual(docs.slice(0, 5).map((d) => d.id as string).sort());
    } finally {
      await server.close();
      await base.close();
    }
  });

  it('--cache-mb 0 reads every answer from the copy', async () => {
    const { db } = await filledCopy(10, 22);
    const base = await openStore(db, { mode: 'read' });
    const { store, reads } = counted(base);
    const server = await startServer({ store, host: '127.0.0.1', port: 0, secret: 's', fault: (err) => { throw err; }, memo: { maxBytes: 0, ttlMs: 60_000 } });
    try {
      for (let i = 0; i < 3; i++) expect((await post(server.url, '/api/v1/tenders/search', {})).status).toBe(200);
      expect(reads()).toBe(3);
    } finally {
      await server.close();
      await base.close();
    }
  });
});
