import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RunError } from '../../src/errors.js';
import { stringifyJson, type JsonObject } from '../../src/model/exact-json.js';
import { parseJson } from '../../src/model/json-parse.js';
import { hostRunsIn } from '../../src/store/sqlite-run-client.js';
import type { Store } from '../../src/store/store.js';
import { open } from './engines.js';

/**
 * The thread a sync's SQLite run works on in the built CLI (dist/sqlite-worker.cjs,
 * made by `npm run build`, which `npm test` runs first): the store suite hosts runs
 * in the test's own thread; these tests send them across, as the CLI does.
 */
const WORKER = resolve('dist/sqlite-worker.cjs');

const tender = (id: string, status = 'open') => ({ id, title: `Road works ${id}`, status, publicationDate: '2026-01-02', buyer: { name: 'City' } });

async function sync(store: Store, tenders: Record<string, unknown>[], name = 's') {
  const run = await store.beginRun({ sync: { name, query: {}, service: 'u' }, mode: 'full' });
  for (let i = 0; i < tenders.length; i += 2) await run.add(tenders.slice(i, i + 2));
  return run.commit({ complete: true, pages: 1, requests: 1 });
}

let dir: string;
let db: string;
beforeAll(() => {
  expect(existsSync(WORKER), `${WORKER}: run npm run build first`).toBe(true);
  hostRunsIn(WORKER);
});
afterAll(() => hostRunsIn(null));
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tenders-worker-'));
  db = join(dir, 'tenders.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("a sync's run on its own thread", () => {
  it("makes a new copy, then records a re-sync's changes, as in the calling thread", async () => {
    const store = await open(db);
    const first = await sync(store, [tender('A'), tender('B'), tender('C')]);
    expect(first.counts).toMatchObject({ seen: 3, new: 3 });
    const second = await sync(store, [tender('A', 'closed'), tender('C'), tender('D')]);
    expect(second.counts).toMatchObject({ new: 1, changed: 1, gone: 1, unchanged: 1 });
    const changes: unknown[] = [];
    for await (const batch of store.changes()) changes.push(...batch.map((c) => [c.id, c.kind, c.field, c.old, c.new]));
    expect(changes).toEqual([
      ['A', 'changed', 'status', 'open', 'closed'],
      ['B', 'gone', null, undefined, undefined],
      ['D', 'new', null, undefined, undefined],
    ]);
    await store.close();
  });

  it('takes a saved query holding a number beyond double precision there and back, every digit kept', async () => {
    const store = await open(db);
    const query = parseJson('{"body":{"minValue":12345678901234567890123}}') as JsonObject;
    const definition = { name: 'big', query, service: 'u' };
    for (const run of [1, 2]) {
      const started = await store.beginRun({ sync: definition, mode: 'full' });
      await started.add([tender('A')]);
      const receipt = await started.commit({ complete: true, pages: 1, requests: 1 });
      expect(stringifyJson(receipt.query)).toBe('{"body":{"minValue":12345678901234567890123}}');
      expect(receipt.run).toBe(run);
    }
    const saved = new Database(db, { readonly: true });
    expect(saved.prepare("SELECT query FROM syncs WHERE name = 'big'").pluck().get()).toBe('{"body":{"minValue":12345678901234567890123}}');
    saved.close();
    await store.close();
  });

  it('a failure there keeps its class here (a busy copy is a RunError), and the copy stays as it was', async () => {
    const store = await open(db, 'write', { busyTimeoutMs: 50 });
    await sync(store, [tender('A')]);
    const other = new Database(db);
    other.exec('BEGIN IMMEDIATE');
    try {
      const err = await sync(store, [tender('A', 'closed')]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RunError);
      expect((err as Error).message).toMatch(/is busy: another sync has been writing it/);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect((await store.count({ statuses: ['closed'] })).total).toBe(0);
    expect((await store.count({ statuses: ['open'] })).total).toBe(1);
    await store.close();
  });

  it('an aborted run leaves the copy as it was', async () => {
    const store = await open(db);
    await sync(store, [tender('A')]);
    const run = await store.beginRun({ sync: { name: 's', query: {}, service: 'u' }, mode: 'full' });
    await run.add([tender('A', 'closed'), tender('B')]);
    await run.abort();
    expect((await store.count({})).total).toBe(1);
    expect((await sync(store, [tender('A')])).counts).toMatchObject({ new: 0, changed: 0, unchanged: 1 });
    await store.close();
  });
});
