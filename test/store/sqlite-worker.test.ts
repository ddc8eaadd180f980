import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InterruptedError, RunError } from '../../src/errors.js';
import { stringifyJson, type JsonObject } from '../../src/model/exact-json.js';
import { parseJson } from '../../src/model/json-parse.js';
import { hostRunsIn } from '../../src/store/sqlite-run-client.js';
import { open, sync } from './engines.js';

/**
 * The thread a sync's SQLite run works on in the built CLI (dist/sqlite-worker.cjs,
 * made by `npm run build`, which `npm test` runs first): the store suite hosts runs
 * in the test's own thread; these tests send them across, as the CLI does.
 */
const WORKER = resolve('dist/sqlite-worker.cjs');

const tender = (id: string, status = 'open') => ({ id, title: `Road works ${id}`, status, publicationDate: '2026-01-02', buyer: { name: 'City' } });

/** Pages of two tenders: several on their way to the run's thread at once. */
const IN_TWOS = { page: 2 };

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
    const first = await sync(store, 's', [tender('A'), tender('B'), tender('C')], IN_TWOS);
    expect(first.counts).toMatchObject({ seen: 3, new: 3 });
    const second = await sync(store, 's', [tender('A', 'closed'), tender('C'), tender('D')], IN_TWOS);
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
    const definition = { name: 'big', query, service: 'http://127.0.0.1:1' };
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
    await sync(store, 's', [tender('A')], IN_TWOS);
    const other = new Database(db);
    other.exec('BEGIN IMMEDIATE');
    try {
      const err = await sync(store, 's', [tender('A', 'closed')], IN_TWOS).catch((e: unknown) => e);
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

  it('Ctrl-C while its commit waits for another writer stops the wait at once: the commit fails with the interruption, and the copy stays as it was', async () => {
    const interruption = new AbortController();
    // Far longer than the test may take: only the interruption ends the wait.
    const store = await open(db, 'write', { busyTimeoutMs: 3_600_000, signal: interruption.signal });
    await sync(store, 's', [tender('A')], IN_TWOS);
    const other = new Database(db);
    other.exec('BEGIN IMMEDIATE');
    try {
      const run = await store.beginRun({ sync: { name: 's', query: {}, service: 'http://127.0.0.1:1' }, mode: 'full' });
      await run.add([tender('A', 'closed'), tender('B')]);
      const committing = run.commit({ complete: true, pages: 1, requests: 1 });
      interruption.abort(new InterruptedError('SIGINT'));
      await expect(committing).rejects.toBeInstanceOf(InterruptedError);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect((await store.count({})).total).toBe(1);
    expect((await store.count({ statuses: ['closed'] })).total).toBe(0);
    await store.close();
    // The lock is given back: the next run (of a command not interrupted) commits.
    const next = await open(db);
    expect((await sync(next, 's', [tender('A'), tender('B')], IN_TWOS)).counts).toMatchObject({ new: 1, unchanged: 1 });
    await next.close();
  });

  it('a run begun after the interruption writes nothing, with no other writer to wait for', async () => {
    const store = await open(db);
    await sync(store, 's', [tender('A')], IN_TWOS);
    await store.close();
    const interruption = new AbortController();
    interruption.abort(new InterruptedError('SIGTERM'));
    const late = await open(db, 'write', { signal: interruption.signal });
    const run = await late.beginRun({ sync: { name: 's', query: {}, service: 'http://127.0.0.1:1' }, mode: 'full' });
    await run.add([tender('A', 'closed')]);
    await expect(run.commit({ complete: true, pages: 1, requests: 1 })).rejects.toBeInstanceOf(InterruptedError);
    expect((await late.count({ statuses: ['closed'] })).total).toBe(0);
    await late.close();
  });

  it('a new copy whose first run is interrupted while it is built is not put in place', async () => {
    const interruption = new AbortController();
    const store = await open(db, 'write', { signal: interruption.signal });
    const run = await store.beginRun({ sync: { name: 's', query: {}, service: 'http://127.0.0.1:1' }, mode: 'full' });
    await run.add([tender('A'), tender('B')]);
    interruption.abort(new InterruptedError('SIGINT'));
    await expect(run.commit({ complete: true, pages: 1, requests: 1 })).rejects.toBeInstanceOf(InterruptedError);
    await store.close();
    expect(readdirSync(dir).filter((name) => !name.endsWith('.lock'))).toEqual([]);
  });

  it('an aborted run leaves the copy as it was', async () => {
    const store = await open(db);
    await sync(store, 's', [tender('A')], IN_TWOS);
    const run = await store.beginRun({ sync: { name: 's', query: {}, service: 'http://127.0.0.1:1' }, mode: 'full' });
    await run.add([tender('A', 'closed'), tender('B')]);
    await run.abort();
    expect((await store.count({})).total).toBe(1);
    expect((await sync(store, 's', [tender('A')], IN_TWOS)).counts).toMatchObject({ new: 0, changed: 0, unchanged: 1 });
    await store.close();
  });
});
