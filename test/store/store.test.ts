import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/model/json-parse.js';
import { RunError, UsageError } from '../../src/errors.js';
import { stringifyJson } from '../../src/model/exact-json.js';
import type { LocalSelection } from '../../src/model/local-selection.js';
import { Store as Sandbox, tenderMatcher } from '../../src/sandbox/store.js';
import type { SortBy, SortOrder } from '../../src/contract/request.js';
import { type ChangeRecord, type Store, type SyncDefinition } from '../../src/store/store.js';
import { all, engines, letters, open, sync } from './engines.js';

/** The sandbox's tenders as the online walk yields them (parsed from the JSON the service sends). */
function docs(sandbox: Sandbox): Record<string, unknown>[] {
  return [...sandbox.rows()].map((row) => parseJson(row.json) as Record<string, unknown>);
}

const definition = (name: string, query: Record<string, unknown> = {}): SyncDefinition => ({
  name,
  query,
  service: 'http://127.0.0.1:1',
});

const ids = (tenders: Record<string, unknown>[]) => tenders.map((t) => t.id);

describe.each(engines)('store ($name)', (engine) => {
  let store: Store;
  let location: string;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ location, cleanup } = await engine.location());
    store = await open(location);
  });
  afterEach(async () => {
    await store.close();
    await cleanup();
  });

  describe('faithful upserts', () => {
    it('stores every tender once and gives back the documents the service sent, in its order for every sort', async () => {
      const sandbox = new Sandbox(300, 7);
      const receipt = await sync(store, 'all', docs(sandbox));
      expect(receipt).toMatchObject({ complete: true, baseline: true, counts: { new: 300, changed: 0, gone: 0, seen: 300 } });
      const byId = new Map(docs(sandbox).map((t) => [t.id, t]));
      for (const sortBy of ['publicationDate', 'deadline', 'estimatedValue'] as SortBy[]) {
        for (const sortOrder of ['asc', 'desc'] as SortOrder[]) {
          const got = await all(store.select({ sortBy, sortOrder }));
          const truth = sandbox.truth(sortBy, sortOrder, () => true);
          expect(ids(got), `${sortBy} ${sortOrder}`).toEqual(truth.map((t) => t.id));
          for (const t of got) expect(t).toEqual(byId.get(t.id));
        }
      }
      // The default order is the service's default: publicationDate desc.
      expect(ids(await all(store.select({})))).toEqual(sandbox.truth('publicationDate', 'desc', () => true).map((t) => t.id));
    });

    it('keeps numbers beyond double precision, key order, prototype-named keys and escapes exactly', async () => {
      const text =
        '{"id":"X-1","title":"Ex\\totic\\r\\n\\"works\\" C:\\\\ \\\\N \\\\u0000 \\\\\\\\ud800 caf\u00e9 \u20ac \ud83d\ude00","status":"open","publicationDate":"2026-01-02","deadline":null,' +
        '"buyer":{"id":"B","name":"Buyer","country":"DEU"},"estimatedValue":{"amount":12345678901234567890,"currency":"EUR","amountEur":1.5},' +
        '"precise":0.10000000000000000555,"toString":"plain","__proto__":{"polluted":true},"z":[1,{"a":9007199254740993}]}';
      await sync(store, 'exotic', [parseJson(text) as Record<string, unknown>]);
      const [got] = await all(store.select({}));
      expect(stringifyJson(got)).toBe(text);
      expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    });

    it('keeps a tender with words too long for a PostgreSQL full-text index, found by its other words', async () => {
      // One word of 3000 letters (PostgreSQL holds words of up to 2046 bytes); a title of 1.1 MB of words (a tsvector holds 1 MB).
      const many = Array.from({ length: 40_000 }, (_, i) => `w${i}${'y'.repeat(24)}`).join(' ');
      const tenders = [
        { id: 'L-1', title: `Bridge ${'x'.repeat(3000)} repair`, publicationDate: '2026-01-02', buyer: { name: 'Town' } },
        { id: 'L-2', title: `Tunnel ${many}`, publicationDate: '2026-01-01', buyer: { name: 'City' } },
      ];
      expect(await sync(store, 'long', tenders)).toMatchObject({ complete: true, counts: { new: 2 } });
      expect(ids(await all(store.select({ words: '"bridge" repair' })))).toEqual(['L-1']);
      expect(ids(await all(store.select({ words: 'tunnel w1yyyyyyyyyyyyyyyyyyyyyyyy' })))).toEqual(['L-2']);
      // PostgreSQL's index cannot hold the long word: a search for it finds nothing there (docs/local-copy-postgres.md).
      expect(ids(await all(store.select({ words: `bridge x${'x'.repeat(2999)}` })))).toEqual(engine.name === 'sqlite' ? ['L-1'] : []);
      expect((await all(store.select({}))).map((t) => stringifyJson(t))).toEqual(tenders.map((t) => JSON.stringify(t)));
    });

    it('keeps tenders whose dates are none: the column NULL in both engines (the document keeps the text), listed and counted alike', async () => {
      const tenders = [
        { id: 'D-1', publicationDate: '2026-13-01T00:00:00Z', deadline: '2026-01-01T10:00:00 noon' },
        { id: 'D-2', publicationDate: '2026-01-05', deadline: '2026-01-01T25:00:00Z' },
        { id: 'D-3', publicationDate: '2026-02-29', deadline: '2026-03-01T12:00:00+01:00' },
        // A day the calendar lacks is not rolled over into March; a time without its offset is no instant.
        { id: 'D-4', publicationDate: '2028-02-29', deadline: '2026-04-31T12:00:00Z' },
        { id: 'D-5', publicationDate: '2026-05-01 10:00', deadline: '2026-05-01T10:00:00' },
      ];
      expect(await sync(store, 'dates', tenders)).toMatchObject({ complete: true, counts: { new: 5 } });
      const columns = await engine.rows(location, 'SELECT id, published, deadline FROM tenders ORDER BY id');
      expect(columns.map((row) => row.map((v) => (v instanceof Date ? v.toISOString() : v)))).toEqual([
        ['D-1', null, null],
        ['D-2', '2026-01-05T00:00:00.000Z', null],
        ['D-3', null, '2026-03-01T11:00:00.000Z'],
        ['D-4', '2028-02-29T00:00:00.000Z', null],
        ['D-5', null, null],
      ]);
      expect((await store.count({})).total).toBe(5);
      // The service's order leaves out a tender without the field it sorts by, as --sort deadline always did.
      expect((await all(store.select({}))).map((t) => t.id)).toEqual(['D-4', 'D-2']);
      expect((await all(store.select({ sortBy: 'deadline' }))).map((t) => t.id)).toEqual(['D-3']);
      expect((await all(store.select({ sortBy: 'deadline' })))[0]).toMatchObject({ deadline: '2026-03-01T12:00:00+01:00' });
    });

    it('keeps a tender whose words fill a PostgreSQL tsvector across title and buyer, or grow when folded', async () => {
      // 87 381 words of 7 bytes take 12 bytes each in a tsvector: 3 bytes short of its megabyte, then the buyer's word.
      const full = Array.from({ length: 87_381 }, (_, i) => `a${String(i).padStart(6, '0')}`).join(' ');
      // Words of two Hangul syllables: 2 units of text, 6 bytes of a word (unicode61 keeps a syllable whole; NFD made 18).
      const hangul = (from: number) => Array.from({ length: 34_000 }, (_, i) => String.fromCharCode(0xac00 + ((from + i) % 11172), 0xac00 + i / 11172)).join(' ');
      const tenders = [
        { id: 'F-1', title: full, publicationDate: '2026-01-02', buyer: { name: 'Town' } },
        { id: 'F-2', title: hangul(0), publicationDate: '2026-01-01', buyer: { name: hangul(5000) } },
      ];
      expect(await sync(store, 'full', tenders)).toMatchObject({ complete: true, counts: { new: 2 } });
      expect(ids(await all(store.select({ words: 'a000000' })))).toEqual(['F-1']);
      expect(ids(await all(store.select({ words: hangul(0).slice(0, 2) })))).toEqual(['F-2']);
    });

    it('keeps a tender whose status, country and buyer name are longer than a PostgreSQL index holds, and counts it by them', async () => {
      const long = letters(3000);
      const tenders = [
        { id: 'B-1', status: long, publicationDate: '2026-01-02', buyer: { name: long, country: long } },
        { id: 'B-2', status: 'open', publicationDate: '2026-01-01', buyer: { name: 'Town', country: 'DEU' } },
      ];
      expect(await sync(store, 'long-values', tenders)).toMatchObject({ complete: true, counts: { new: 2 } });
      for (const path of ['status', 'buyer.name', 'buyer.country']) {
        const { rows } = await store.count({}, path);
        expect(rows.map((r) => [r.value, r.count]).sort(), path).toEqual([[long, 1], [path === 'status' ? 'open' : path === 'buyer.name' ? 'Town' : 'DEU', 1]].sort());
      }
      expect(ids(await all(store.select({ statuses: ['open'], countries: ['DEU'] })))).toEqual(['B-2']);
      expect((await all(store.select({}))).map((t) => stringifyJson(t))).toEqual(tenders.map((t) => JSON.stringify(t)));
    });

    it('stores a tender two syncs match once, and forget removes only the tenders no other sync holds', async () => {
      const sandbox = new Sandbox(120, 3);
      const tenders = docs(sandbox);
      await sync(store, 'a', tenders.slice(0, 80));
      await sync(store, 'b', tenders.slice(40));
      expect((await store.count({})).total).toBe(120);
      expect((await store.count({ sync: 'a' })).total).toBe(80);
      expect((await store.status()).tenders).toBe(120);
      expect(await store.forget('a')).toEqual({ tenders: 40 });
      expect((await store.count({})).total).toBe(80);
      expect((await store.listSyncs()).map((s) => s.name)).toEqual(['b']);
      await expect(store.forget('a')).rejects.toThrow(UsageError);
    });

    it('takes a page of any size whole, in its order (an engine may write it in parts)', async () => {
      const tenders = docs(new Sandbox(1234, 8));
      const run = await store.beginRun({ sync: definition('big-page'), mode: 'full' });
      await run.add(tenders);
      const receipt = await run.commit({ complete: true, pages: 1, requests: 1 });
      expect(receipt.counts).toMatchObject({ seen: 1234, new: 1234, repeated: 0 });
      const byId = (list: Record<string, unknown>[]) => [...list].sort((a, b) => String(a.id).localeCompare(String(b.id)));
      expect(byId(await all(store.select({})))).toEqual(byId(tenders));
    });

    it('counts tenders without an id and repeats, storing the last of a repeated id', async () => {
      const run = await store.beginRun({ sync: definition('r'), mode: 'full' });
      await run.add([{ id: 'A', title: 'first', publicationDate: '2026-01-01' }, { title: 'no id' }]);
      await run.add([{ id: 'A', title: 'second', publicationDate: '2026-01-01' }]);
      const receipt = await run.commit({ complete: true, pages: 2, requests: 2 });
      expect(receipt.counts).toMatchObject({ seen: 3, repeated: 1, withoutId: 1, new: 1 });
      expect(await all(store.select({}))).toEqual([{ id: 'A', title: 'second', publicationDate: '2026-01-01' }]);
    });
  });

  describe('changes', () => {
    const base = (id: string, extra: Record<string, unknown> = {}) => ({
      id,
      title: `Tender ${id}`,
      status: 'open',
      publicationDate: '2026-03-01',
      deadline: '2026-04-01T12:00:00Z',
      buyer: { id: 'B1', name: 'City of Lyon', country: 'FRA' },
      estimatedValue: { amount: 100, currency: 'EUR', amountEur: 100 },
      ...extra,
    });

    it('records new, changed (each field, with old and new values) and gone exactly once', async () => {
      const first = await sync(store, 's', [base('A'), base('B'), base('C')]);
      expect(first.baseline).toBe(true);
      expect(await all(store.changes())).toEqual([]);

      const second = await sync(store, 's', [
        base('A', { deadline: '2026-05-01T12:00:00Z', estimatedValue: { amount: 120, currency: 'EUR', amountEur: 120 } }),
        base('B'),
        base('D'),
      ]);
      expect(second.counts).toMatchObject({ new: 1, changed: 1, gone: 1, unchanged: 1 });
      const rows = await all(store.changes());
      const shape = (c: ChangeRecord) => [c.id, c.kind, c.field, c.old, c.new];
      expect(rows.map(shape)).toEqual([
        ['A', 'changed', 'deadline', '2026-04-01T12:00:00Z', '2026-05-01T12:00:00Z'],
        ['A', 'changed', 'estimatedValue.amount', 100, 120],
        ['A', 'changed', 'estimatedValue.amountEur', 100, 120],
        ['C', 'gone', null, undefined, undefined],
        ['D', 'new', null, undefined, undefined],
      ]);
      expect(new Set(rows.map((r) => r.run))).toEqual(new Set([second.run]));

      // The same data again: nothing new is recorded.
      const third = await sync(store, 's', [base('A', { deadline: '2026-05-01T12:00:00Z', estimatedValue: { amount: 120, currency: 'EUR', amountEur: 120 } }), base('B'), base('D')]);
      expect(third.counts).toMatchObject({ new: 0, changed: 0, gone: 0, unchanged: 3 });
      expect(await all(store.changes())).toHaveLength(5);
      // A gone tender is not selected, and comes back as new.
      expect(ids(await all(store.select({})))).toEqual(['D', 'B', 'A']);
      const back = await sync(store, 's', [base('A', { deadline: '2026-05-01T12:00:00Z', estimatedValue: { amount: 120, currency: 'EUR', amountEur: 120 } }), base('B'), base('C', { title: 'Renamed' }), base('D')]);
      // Back and renamed: new to the sync again, and changed since it was stored (its rows say both, so do its counts).
      expect(back.counts).toMatchObject({ new: 1, changed: 1, gone: 0, unchanged: 3 });
      expect((await all(store.changes({ id: 'C' }))).map(shape)).toEqual([
        ['C', 'gone', null, undefined, undefined],
        ['C', 'new', null, undefined, undefined],
        ['C', 'changed', 'title', 'Tender C', 'Renamed'],
      ]);
    });

    it("a new sync's baseline records no change of its own, and counts the change of a tender another sync stored as it records it", async () => {
      await sync(store, 'a', [base('A'), base('B')]);
      const receipt = await sync(store, 'b', [base('A', { status: 'closed' }), base('B'), base('C')]);
      expect(receipt).toMatchObject({ baseline: true, counts: { new: 3, changed: 1, unchanged: 0, gone: 0 } });
      const shape = (c: ChangeRecord) => [c.run, c.sync, c.id, c.kind, c.field, c.old, c.new];
      // The stored document changed: one change of A, recorded once, by the run that saw it; no `new` rows (the baseline).
      expect((await all(store.changes())).map(shape)).toEqual([[receipt.run, 'b', 'A', 'changed', 'status', 'open', 'closed']]);
      // It is A's history in a, which held A then; and a's next run finds A as stored.
      expect((await all(store.changes({ sync: 'a' }))).map((c) => [c.id, c.kind])).toEqual([['A', 'changed']]);
      expect((await sync(store, 'a', [base('A', { status: 'closed' }), base('B')])).counts).toMatchObject({ new: 0, changed: 0, unchanged: 2 });
      // Equal documents: the baseline of a third sync records nothing and counts no change.
      const third = await sync(store, 'c', [base('A', { status: 'closed' }), base('B')]);
      expect(third.counts).toMatchObject({ new: 2, changed: 0, unchanged: 0 });
      expect(await all(store.changes())).toHaveLength(1);
    });

    it('a repeated id counts as its last copy, whatever an earlier copy said', async () => {
      await sync(store, 's', [base('A')]);
      const run = await store.beginRun({ sync: definition('s'), mode: 'full' });
      await run.add([base('A', { title: 'Draft' })]);
      await run.add([base('A')]);
      const receipt = await run.commit({ complete: true, pages: 2, requests: 2 });
      expect(receipt.counts).toMatchObject({ new: 0, changed: 0, unchanged: 1, repeated: 1 });
      expect(await all(store.changes())).toEqual([]);
    });

    it('a run compares again at commit when another sync committed while it walked', async () => {
      await sync(store, 'x', [base('A'), base('B')]);
      const run = await store.beginRun({ sync: definition('x'), mode: 'full' });
      await run.add([base('A')]);
      // Meanwhile another sync, through its own connection, stores a newer A.
      const other = await open(location);
      try {
        await sync(other, 'y', [base('A', { status: 'closed' })]);
      } finally {
        await other.close();
      }
      await run.add([base('B')]);
      const receipt = await run.commit({ complete: true, pages: 2, requests: 2 });
      // x saw A open after y stored it closed: A is open again, and that change is recorded once, by x.
      expect(receipt.counts).toMatchObject({ new: 0, changed: 1, unchanged: 1 });
      const shape = (c: ChangeRecord) => [c.sync, c.id, c.kind, c.field, c.old, c.new];
      expect((await all(store.changes({ id: 'A' }))).map(shape)).toEqual([
        ['y', 'A', 'changed', 'status', 'open', 'closed'],
        ['x', 'A', 'changed', 'status', 'closed', 'open'],
      ]);
      expect((await all(store.select({}))).find((t) => t.id === 'A')).toMatchObject({ status: 'open' });
    });

    it('names a field added, removed, or turned from an object into null', async () => {
      await sync(store, 's', [base('A', { extra: 1 })]);
      await sync(store, 's', [base('A', { estimatedValue: null, note: 'x' })]);
      const rows = (await all(store.changes())).map((c) => [c.field, c.old, c.new]);
      expect(rows).toEqual([
        ['estimatedValue', { amount: 100, currency: 'EUR', amountEur: 100 }, null],
        ['note', undefined, 'x'],
        ['extra', 1, undefined],
      ]);
    });

    it('filters the history by sync, time and tender', async () => {
      await sync(store, 'a', [base('A')]);
      await sync(store, 'b', [base('B')]);
      await sync(store, 'a', [base('A', { status: 'closed' }), base('C')]);
      await sync(store, 'b', [base('B'), base('A', { status: 'closed' })]);
      expect((await all(store.changes({ sync: 'a' }))).map((c) => [c.id, c.kind])).toEqual([
        ['A', 'changed'],
        ['C', 'new'],
      ]);
      // b sees A as new to it, closed already: the change a recorded before b held A is not b's.
      expect((await all(store.changes({ sync: 'b' }))).map((c) => [c.sync, c.id, c.kind])).toEqual([['b', 'A', 'new']]);
      // A change a records while b holds A is b's too, once; after b stops matching A, no longer.
      await sync(store, 'a', [base('A', { status: 'open' }), base('C')]);
      await sync(store, 'b', [base('B')]);
      await sync(store, 'a', [base('A', { status: 'awarded' }), base('C')]);
      expect((await all(store.changes({ sync: 'b' }))).map((c) => [c.sync, c.id, c.kind, c.new])).toEqual([
        ['b', 'A', 'new', undefined],
        ['a', 'A', 'changed', 'open'],
        ['b', 'A', 'gone', undefined],
      ]);
      expect(await all(store.changes({ since: '2999-01-01' }))).toEqual([]);
      expect((await all(store.changes({ id: 'C' }))).map((c) => c.kind)).toEqual(['new']);
    });

    it('searches the history newest first, a page after another by (at, seq), for several syncs, kinds and a tender', async () => {
      await sync(store, 'a', [base('A')]);
      await sync(store, 'b', [base('B')]);
      await sync(store, 'a', [base('A', { status: 'closed' }), base('C')]);
      await sync(store, 'b', [base('B', { title: 'Renamed' }), base('A', { status: 'closed' })]);
      await sync(store, 'a', [base('C')]);
      const history = await all(store.changes());
      const { changes, total } = await store.searchChanges({}, { count: true });
      expect(total).toBe(history.length);
      expect(changes.map(({ seq: _, ...c }) => JSON.stringify(c)).sort()).toEqual(history.map((c) => JSON.stringify(c)).sort());
      const order = (x: { at: string; seq: number }, y: { at: string; seq: number }) => (x.at === y.at ? y.seq - x.seq : x.at < y.at ? 1 : -1);
      expect(changes).toEqual([...changes].sort(order));
      // Paged two at a time after the last row's (at, seq): every change once, in the same order.
      const paged: number[] = [];
      let before: { at: string; seq: number } | undefined;
      for (;;) {
        const page = await store.searchChanges({}, { limit: 2, before });
        paged.push(...page.changes.map((c) => c.seq));
        if (page.changes.length < 2) break;
        before = { at: page.changes[1]!.at, seq: page.changes[1]!.seq };
      }
      expect(paged).toEqual(changes.map((c) => c.seq));
      const pick = async (search: Parameters<Store['searchChanges']>[0]) => (await store.searchChanges(search)).changes.map((c) => `${c.sync} ${c.id} ${c.kind}`).sort();
      // a changed A before b held it: not b's (as changes({ sync }) counts it).
      expect(await pick({ syncs: ['b'] })).toEqual(['b A new', 'b B changed']);
      expect(await pick({ syncs: ['a', 'b'] })).toEqual(history.map((h) => `${h.sync} ${h.id} ${h.kind}`).sort());
      expect(await pick({ syncs: [] })).toEqual([]);
      expect(await pick({ kinds: ['gone', 'new'] })).toEqual(history.filter((h) => h.kind !== 'changed').map((h) => `${h.sync} ${h.id} ${h.kind}`).sort());
      expect(await pick({ id: 'A', since: '2999-01-01' })).toEqual([]);
      expect(await pick({ id: "A' OR 1=1 --" })).toEqual([]);
    });

    it('--new-only records only new tenders and leaves held ones as they were', async () => {
      await sync(store, 's', [base('A'), base('B')]);
      const run = await store.beginRun({ sync: definition('s'), mode: 'new-only' });
      expect(await run.known(['A', 'X'])).toEqual(new Set(['A']));
      await run.add([base('X'), base('A', { title: 'changed' })]);
      const receipt = await run.commit({ complete: true, pages: 1, requests: 1 });
      expect(receipt.counts).toMatchObject({ new: 1, changed: 0, gone: 0 });
      expect((await all(store.changes())).map((c) => [c.id, c.kind])).toEqual([['X', 'new']]);
      expect((await all(store.select({}))).find((t) => t.id === 'A')?.title).toBe('Tender A');
      expect((await store.count({ sync: 's' })).total).toBe(3);
    });
  });

  describe('when a sync saw its tenders', () => {
    const tender = (id: string) => ({ id, title: `Tender ${id}`, status: 'open', publicationDate: '2026-03-01' });
    /** Each membership row of sync s: its id, whether its last_seen is run `run`'s end, whether it is gone. */
    const memberships = (run: number) =>
      engine.rows(
        location,
        `SELECT m.id, CASE WHEN m.last_seen = r.ended THEN 1 ELSE 0 END, CASE WHEN m.gone_at IS NULL THEN 0 ELSE 1 END
         FROM sync_tenders m, runs r WHERE m.sync = 's' AND r.run = ${run} ORDER BY m.id`,
      );

    it('a full run marks every tender it saw with its end, a gone one keeps its own, a new-only run only its new ones', async () => {
      const first = await sync(store, 's', ['A', 'B', 'C'].map(tender));
      expect(await memberships(first.run)).toEqual([['A', 1, 0], ['B', 1, 0], ['C', 1, 0]]);
      const second = await sync(store, 's', ['A', 'B'].map(tender));
      expect(await memberships(second.run)).toEqual([['A', 1, 0], ['B', 1, 0], ['C', 0, 1]]);
      expect(await memberships(first.run)).toEqual([['A', 0, 0], ['B', 0, 0], ['C', 1, 1]]);
      const third = await sync(store, 's', [tender('X')], { mode: 'new-only' });
      expect(await memberships(third.run)).toEqual([['A', 0, 0], ['B', 0, 0], ['C', 0, 1], ['X', 1, 0]]);
      const fourth = await sync(store, 's', ['A', 'B', 'C', 'X'].map(tender));
      expect(await memberships(fourth.run)).toEqual([['A', 1, 0], ['B', 1, 0], ['C', 1, 0], ['X', 1, 0]]);
      // Back, C keeps the first_seen of its first run.
      expect(await engine.rows(location, `SELECT CASE WHEN m.first_seen = r.ended THEN 1 ELSE 0 END FROM sync_tenders m, runs r WHERE m.id = 'C' AND r.run = ${first.run}`)).toEqual([[1]]);
    });

    it('keeps a saved query\'s numbers beyond double precision: the next run of the same query is accepted', async () => {
      const query = parseJson('{"body":{"minValue":12345678901234567890123}}') as Record<string, unknown>;
      for (const expected of [1, 2]) {
        const run = await store.beginRun({ sync: definition('big', query), mode: 'full' });
        await run.add([tender('A')]);
        expect((await run.commit({ complete: true, pages: 1, requests: 1 })).run).toBe(expected);
      }
      expect(stringifyJson((await store.getSync('big'))!.query)).toBe('{"body":{"minValue":12345678901234567890123}}');
    });
  });

  describe('runs that do not complete', () => {
    it('an incomplete run records its receipt and nothing else; an aborted one nothing at all', async () => {
      const sandbox = new Sandbox(60, 2);
      const tenders = docs(sandbox);
      await sync(store, 's', tenders.slice(0, 30));
      const before = ids(await all(store.select({})));
      const run = await store.beginRun({ sync: definition('s'), mode: 'full' });
      await run.add(tenders.slice(30));
      const receipt = await run.commit({ complete: false, pages: 1, requests: 3, error: 'HTTP 503' });
      expect(receipt).toMatchObject({ complete: false, error: 'HTTP 503' });
      expect(ids(await all(store.select({})))).toEqual(before);
      expect((await store.getSync('s'))?.lastRun).toMatchObject({ complete: false, run: receipt.run });

      const aborted = await store.beginRun({ sync: definition('s'), mode: 'full' });
      await aborted.add(tenders.slice(30));
      await aborted.abort();
      expect(ids(await all(store.select({})))).toEqual(before);
      expect(await all(store.changes())).toEqual([]);
      // The lock is released: the next run starts.
      await (await store.beginRun({ sync: definition('s'), mode: 'full' })).abort();
    });
  });

  describe('writers', () => {
    it('a second writer of the same sync fails at once naming the holder', async () => {
      const run = await store.beginRun({ sync: definition('s'), mode: 'full' });
      const other = await open(location);
      try {
        const err = await other.beginRun({ sync: definition('s'), mode: 'full' }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(RunError);
        expect((err as Error).message).toMatch(/sync 's' is running already.*pid \d+/);
        // Another sync's writer is not held back.
        await (await other.beginRun({ sync: definition('t'), mode: 'full' })).abort();
      } finally {
        await run.abort();
        await other.close();
      }
    });

    it('refuses a different query or service unless reset', async () => {
      await sync(store, 's', []);
      await expect(store.beginRun({ sync: { ...definition('s'), query: { statuses: ['open'] } }, mode: 'full' })).rejects.toThrow(/--reset/);
      await expect(store.beginRun({ sync: { ...definition('s'), service: 'http://other' }, mode: 'full' })).rejects.toThrow(UsageError);
      const run = await store.beginRun({ sync: { ...definition('s'), query: { statuses: ['open'] } }, mode: 'full', reset: true });
      await run.commit({ complete: true, pages: 0, requests: 1 });
      expect((await store.getSync('s'))?.query).toEqual({ statuses: ['open'] });
      await expect(store.beginRun({ sync: definition('../x'), mode: 'full' })).rejects.toThrow(UsageError);
    });

    it('lists syncs with their last run and how old the copy is', async () => {
      await sync(store, 'b', [{ id: 'A', publicationDate: '2026-01-01' }]);
      await sync(store, 'a', []);
      const list = await store.listSyncs();
      expect(list.map((s) => [s.name, s.tenders, s.lastRun.complete])).toEqual([
        ['a', 0, true],
        ['b', 1, true],
      ]);
      const status = await store.status('b');
      expect(status).toMatchObject({ syncs: 2, tenders: 1, schemaVersion: engine.schemaVersion, lastComplete: list[1]!.lastComplete });
    });
  });

  describe('local queries', () => {
    const sandbox = new Sandbox(400, 11);
    beforeEach(async () => {
      await sync(store, 'all', docs(sandbox));
    });

    const truth = (selection: LocalSelection, filter: (t: ReturnType<typeof sandbox.truth>[number]) => boolean) =>
      sandbox
        .truth(selection.sortBy ?? 'publicationDate', selection.sortOrder ?? (selection.sortBy === 'deadline' ? 'asc' : 'desc'), () => true)
        .filter(filter)
        .map((t) => t.id);

    it('filters by country, status, dates and values, in the service order', async () => {
      const matcher = tenderMatcher({ buyerCountries: ['DEU', 'FRA'], statuses: ['open'] });
      expect(ids(await all(store.select({ countries: ['DEU', 'FRA'], statuses: ['open'] })))).toEqual(truth({}, matcher));
      const since = '2026-06-01T00:00:00.000Z';
      const until = '2026-09-30T00:00:00.000Z';
      expect(ids(await all(store.select({ publishedSince: since, publishedUntil: until })))).toEqual(
        truth({}, (t) => t.publicationDate >= '2026-06-01' && t.publicationDate <= '2026-09-30'),
      );
      expect(ids(await all(store.select({ deadlineAfter: '2026-12-01T00:00:00Z', sortBy: 'deadline' })))).toEqual(
        truth({ sortBy: 'deadline' }, (t) => t.deadline !== null && Date.parse(t.deadline) >= Date.parse('2026-12-01T00:00:00Z')),
      );
      expect(ids(await all(store.select({ minValueEur: 10_000, maxValueEur: 500_000 })))).toEqual(
        truth({}, (t) => t.estimatedValue !== null && t.estimatedValue.amountEur >= 10_000 && t.estimatedValue.amountEur <= 500_000),
      );
    });

    it('pages with limit and after, as the next page of the same order', async () => {
      const order = truth({ sortBy: 'estimatedValue' }, () => true);
      const first = ids(await all(store.select({ sortBy: 'estimatedValue' }, { limit: 10 })));
      expect(first).toEqual(order.slice(0, 10));
      const second = ids(await all(store.select({ sortBy: 'estimatedValue' }, { limit: 300, after: first[9] as string })));
      expect(second).toEqual(order.slice(10, 310));
      await expect(all(store.select({}, { after: 'NO-SUCH' }))).rejects.toThrow(UsageError);
    });

    it('full-text: words, phrases, prefixes, OR, NOT; a syntax error is a usage error with the rule', async () => {
      const titles = docs(sandbox);
      const has = (t: Record<string, unknown>, word: RegExp) => word.test(String(t.title)) || word.test(String((t.buyer as { name: string }).name));
      const count = async (words: string) => (await store.count({ words })).total;
      const expected = (test: (t: Record<string, unknown>) => boolean) => titles.filter(test).length;
      expect(await count('cleaning')).toBe(expected((t) => has(t, /\bcleaning\b/i)));
      expect(await count('cleaning')).toBeGreaterThan(0);
      expect(await count('clean*')).toBe(expected((t) => has(t, /\bclean\w*/i)));
      expect(await count('"road maintenance"')).toBe(expected((t) => has(t, /\broad maintenance\b/i)));
      expect(await count('cleaning OR maintenance')).toBe(expected((t) => has(t, /\b(cleaning|maintenance)\b/i)));
      expect(await count('services NOT cleaning')).toBe(expected((t) => has(t, /\bservices\b/i) && !has(t, /\bcleaning\b/i)));
      const got = ids(await all(store.select({ words: 'cleaning' })));
      expect(got).toEqual(truth({}, (t) => has(t as unknown as Record<string, unknown>, /\bcleaning\b/i)));
      for (const bad of ['"unterminated', 'AND', 'cleaning (']) {
        const err = await store.count({ words: bad }).catch((e: unknown) => e);
        expect(err, bad).toBeInstanceOf(UsageError);
        expect((err as Error).message).toContain('"a phrase"');
      }
    });

    it('counts exactly, by any dot path', async () => {
      const tenders = docs(sandbox);
      expect((await store.count({})).total).toBe(400);
      for (const path of ['buyer.name', 'buyer.country', 'status', 'estimatedValue.currency', 'procedure']) {
        const { total, rows } = await store.count({}, path);
        expect(total).toBe(400);
        const expected = new Map<unknown, number>();
        for (const t of tenders) {
          const value = path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | null)?.[k], t);
          expected.set(value, (expected.get(value) ?? 0) + 1);
        }
        expect(new Map(rows.map((r) => [r.value, r.count])), path).toEqual(expected);
        expect(rows.map((r) => r.count)).toEqual([...rows.map((r) => r.count)].sort((a, b) => b - a));
      }
      const deu = await store.count({ countries: ['DEU'] }, 'buyer.country');
      expect(deu.rows).toEqual([{ value: 'DEU', count: deu.total }]);
      await expect(store.count({}, 'no.such.field')).rejects.toThrow(/no stored tender has a field 'no.such.field'.*buyer\.name/);
      await expect(store.count({}, 'buyer..name')).rejects.toThrow(UsageError);
      // Names an object has by inheritance are fields like any other: none of these tenders has one.
      for (const path of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
        await expect(store.count({}, path), path).rejects.toThrow(`no stored tender has a field '${path}'`);
      }
    });

    it('counts up to a cap: the count when it is no more, the cap when there are more', async () => {
      const deu = (await store.count({ countries: ['DEU'] })).total;
      expect(deu).toBeGreaterThan(2);
      const cases: [LocalSelection, number][] = [
        [{}, 400],
        [{ countries: ['DEU'] }, deu],
      ];
      for (const [selection, exact] of cases) {
        for (const atMost of [0, 1, exact - 1, exact, exact + 1, 10_001]) {
          expect((await store.count(selection, undefined, { atMost })).total, `${JSON.stringify(selection)} at most ${atMost}`).toBe(Math.min(exact, atMost));
        }
      }
      expect((await store.count({ words: 'zzyzxnowhere' }, undefined, { atMost: 5 })).total).toBe(0);
      // With a field to count by, the cap has no part: the counts stay exact.
      expect((await store.count({}, 'buyer.country', { atMost: 3 })).total).toBe(400);
    });

    it('limits a query to one sync', async () => {
      const few = docs(sandbox).slice(0, 5);
      await sync(store, 'few', few);
      expect((await store.count({ sync: 'few' })).total).toBe(5);
      expect(ids(await all(store.select({ sync: 'few' })))).toEqual(truth({}, (t) => few.some((d) => d.id === t.id)));
    });

    it('limits a query to the tenders any of several syncs holds', async () => {
      const [few, other] = [docs(sandbox).slice(0, 5), docs(sandbox).slice(3, 9)];
      await sync(store, 'few', few);
      await sync(store, 'other', other);
      const held = (t: { id: unknown }) => [...few, ...other].some((d) => d.id === t.id);
      expect((await store.count({ syncs: ['few', 'other'] })).total).toBe(9);
      expect(ids(await all(store.select({ syncs: ['few', 'other'] })))).toEqual(truth({}, held));
      expect(ids(await all(store.select({ syncs: ['few'], sync: 'other' })))).toEqual(truth({}, (t) => few.slice(3).some((d) => d.id === t.id)));
    });
  });
  describe('CPV codes and buyers', () => {
    const tender = (id: string, day: number, buyer: [string, string], codes: Record<string, unknown>, title = `Works ${id}`) => ({
      id,
      title,
      status: 'open',
      publicationDate: `2026-03-0${day}`,
      buyer: { id: buyer[0], name: buyer[1], country: 'DEU' },
      ...codes,
    });
    const tenders = [
      tender('T1', 1, ['B1', 'Stadt Köln Tiefbauamt'], { cpvCodes: ['45233140-2', '45000000'] }),
      tender('T2', 2, ['B2', 'Ville de Lyon'], { cpv: '45233120' }),
      // A number and a word are no codes; the codes of both places count, each once.
      tender('T3', 3, ['B1', 'Köln Kliniken'], { cpvCodes: ['33100000', 'not a code', 45233140, '33100000-1'] }),
      tender('T4', 4, ['B3', 'Hospital Lyon'], {}, 'Köln roads'),
      tender('T5', 5, ['B3', 'Lyon Hospital Roads'], { cpvCodes: ['45100000'], cpv: '33600000-6' }),
    ];
    const selected = async (selection: LocalSelection) => (ids(await all(store.select(selection))) as string[]).sort();
    const counted = async (selection: LocalSelection, path: string, options?: { cpvLevel?: 2 | 3 | 4 | 5 | 8 }) =>
      (await store.count(selection, path, options)).rows.map((r) => [r.value, r.count]);

    beforeEach(async () => {
      await sync(store, 'all', tenders);
    });

    it('--cpv selects the tenders any of whose codes falls under a code of the hierarchy', async () => {
      expect(await selected({ cpv: ['45'] })).toEqual(['T1', 'T2', 'T5']);
      expect(await selected({ cpv: ['4523'] })).toEqual(['T1', 'T2']);
      expect(await selected({ cpv: ['4523314'] })).toEqual(['T1']);
      expect(await selected({ cpv: ['33', '4510'] })).toEqual(['T3', 'T5']);
      expect(await selected({ cpv: ['9'.repeat(2)] })).toEqual([]);
      expect(await selected({ cpv: [] })).toEqual(['T1', 'T2', 'T3', 'T4', 'T5']);
      expect(await selected({ cpv: ['45'], buyerIds: ['B3'] })).toEqual(['T5']);
      expect((await store.count({ cpv: ['45'] })).total).toBe(3);
      // In the service's order, paged as any selection.
      expect(ids(await all(store.select({ cpv: ['45'] }, { limit: 1, after: 'T5' })))).toEqual(['T2']);
    });

    it('--buyer selects by the buyer\'s id, --buyer-name by every word of the buyer\'s name alone', async () => {
      expect(await selected({ buyerIds: ['B1'] })).toEqual(['T1', 'T3']);
      expect(await selected({ buyerIds: ['B1', 'B3'] })).toEqual(['T1', 'T3', 'T4', 'T5']);
      expect(await selected({ buyerName: 'lyon' })).toEqual(['T2', 'T4', 'T5']);
      expect(await selected({ buyerName: 'lyon hospital' })).toEqual(['T4', 'T5']);
      expect(await selected({ buyerName: '"lyon hospital"' })).toEqual(['T5']);
      expect(await selected({ buyerName: 'hosp*' })).toEqual(['T4', 'T5']);
      expect(await selected({ buyerName: 'lyon NOT hospital' })).toEqual(['T2']);
      // Diacritics folded as in `words`; the title's words are not the buyer's (T4 is titled Köln roads).
      expect(await selected({ buyerName: 'koln' })).toEqual(['T1', 'T3']);
      expect(await selected({ buyerName: 'roads' })).toEqual(['T5']);
      expect(await selected({ words: 'roads', buyerName: 'hospital' })).toEqual(['T4', 'T5']);
      await expect(store.count({ buyerName: '"lyon' })).rejects.toThrow(/full-text query '"lyon' is not valid/);
    });

    it('count --by cpv counts per code, or per group of a level, a tender once under each; --by buyer.id per buyer', async () => {
      expect(await counted({}, 'cpv')).toEqual([
        [undefined, 1],
        ['33100000', 1],
        ['33600000', 1],
        ['45000000', 1],
        ['45100000', 1],
        ['45233120', 1],
        ['45233140', 1],
      ]);
      expect(await counted({}, 'cpv', { cpvLevel: 2 })).toEqual([
        ['45000000', 3],
        ['33000000', 2],
        [undefined, 1],
      ]);
      expect(await counted({}, 'cpv', { cpvLevel: 4 })).toEqual([
        ['45230000', 2],
        [undefined, 1],
        ['33100000', 1],
        ['33600000', 1],
        ['45000000', 1],
        ['45100000', 1],
      ]);
      expect(await counted({ cpv: ['45'] }, 'cpv', { cpvLevel: 2 })).toEqual([
        ['45000000', 3],
        ['33000000', 1],
      ]);
      expect((await store.count({ cpv: ['45'] }, 'cpv', { cpvLevel: 2 })).total).toBe(3);
      expect(await counted({}, 'buyer.id')).toEqual([
        ['B1', 2],
        ['B3', 2],
        ['B2', 1],
      ]);
    });

    it("keeps the codes with the tenders: a changed document's codes replace its old ones, forget removes them", async () => {
      await sync(store, 'all', [{ ...tenders[0]!, cpvCodes: ['33100000'] }, ...tenders.slice(1)]);
      expect(await selected({ cpv: ['4523'] })).toEqual(['T2']);
      expect(await selected({ cpv: ['331'] })).toEqual(['T1', 'T3']);
      await sync(store, 'other', [tenders[4]!]);
      await store.forget('all');
      expect(await engine.rows(location, 'SELECT id, code FROM tender_cpv ORDER BY code')).toEqual([
        ['T5', '33600000'],
        ['T5', '45100000'],
      ]);
    });

    describe('where the codes are (the cpv-paths setting)', () => {
      const LOTS = ['lots.cpv', 'classification.main', 'cpvCodes', 'cpv'];
      // Codes where the default paths do not look: in every lot of an array, and in an object.
      const elsewhere = [
        tender('L1', 6, ['B4', 'Lot buyer'], { lots: [{ cpv: '90910000' }, { cpv: '79410000-1' }, { title: 'no code' }] }),
        tender('L2', 7, ['B4', 'Lot buyer'], { classification: { main: '55524000' } }),
      ];
      const stored = async () => engine.rows(location, "SELECT id, cpv FROM tenders WHERE id LIKE 'L%' ORDER BY id");
      const recorded = async () => engine.rows(location, "SELECT value FROM meta WHERE key = 'cpv_paths'");

      it('finds codes at other paths only with the setting that names them; a sync with another setting reads every stored tender again', async () => {
        expect((await sync(store, 'lots', elsewhere)).recodedFrom).toBeUndefined();
        expect(await selected({ cpv: ['909', '55'] })).toEqual([]);
        expect(await store.cpvPaths()).toEqual(['cpvCodes', 'cpv']);
        expect(await recorded()).toEqual([]);

        // The same documents, nothing changed in them: the commit reads every stored tender's codes again, the other sync's too.
        const again = await sync(store, 'lots', elsewhere, { cpvPaths: LOTS });
        expect(again).toMatchObject({ counts: { new: 0, changed: 0, unchanged: 2 }, recodedFrom: ['cpvCodes', 'cpv'] });
        expect(await selected({ cpv: ['909'] })).toEqual(['L1']);
        expect(await selected({ cpv: ['7941'] })).toEqual(['L1']);
        expect(await selected({ cpv: ['55'] })).toEqual(['L2']);
        expect(await selected({ cpv: ['45'] })).toEqual(['T1', 'T2', 'T5']);
        expect(await stored()).toEqual([
          ['L1', '["90910000","79410000"]'],
          ['L2', '["55524000"]'],
        ]);
        expect(await store.cpvPaths()).toEqual(LOTS);
        expect(await recorded()).toEqual([[LOTS.join(',')]]);
        // A reader sees what the copy records.
        const reader = await open(location, 'read');
        expect(await reader.cpvPaths()).toEqual(LOTS);
        await reader.close();

        // The same setting again: nothing to read again.
        expect((await sync(store, 'lots', elsewhere, { cpvPaths: LOTS })).recodedFrom).toBeUndefined();
        // A run that does not complete changes no code and records nothing.
        const failed = await store.beginRun({ sync: definition('lots'), mode: 'full', cpvPaths: ['cpv'] });
        await failed.add(elsewhere);
        await failed.commit({ complete: false, pages: 1, requests: 1, error: 'stopped' });
        expect(await store.cpvPaths()).toEqual(LOTS);

        // The copy has one setting: another sync's run with the default wins, and says what it replaced.
        expect((await sync(store, 'all', tenders, { mode: 'new-only' })).recodedFrom).toEqual(LOTS);
        expect(await selected({ cpv: ['909', '55'] })).toEqual([]);
        expect(await stored()).toEqual([
          ['L1', null],
          ['L2', null],
        ]);
        expect(await engine.rows(location, "SELECT id FROM tender_cpv WHERE id LIKE 'L%'")).toEqual([]);
        expect(await selected({ cpv: ['45'] })).toEqual(['T1', 'T2', 'T5']);
        expect(await store.cpvPaths()).toEqual(['cpvCodes', 'cpv']);
      });

      it("a gone tender's codes are read again into its column but stay out of tender_cpv until it comes back", async () => {
        await sync(store, 'lots', elsewhere);
        await sync(store, 'lots', elsewhere.slice(1));
        await sync(store, 'lots', elsewhere.slice(1), { cpvPaths: LOTS });
        expect(await stored()).toEqual([
          ['L1', '["90910000","79410000"]'],
          ['L2', '["55524000"]'],
        ]);
        expect(await engine.rows(location, "SELECT id, code FROM tender_cpv WHERE id LIKE 'L%'")).toEqual([['L2', '55524000']]);
        await sync(store, 'lots', elsewhere, { cpvPaths: LOTS });
        expect(await selected({ cpv: ['909'] })).toEqual(['L1']);
      });

      it('a new copy records the paths its first sync read the codes from', async () => {
        const fresh = await engine.location();
        const made = await open(fresh.location);
        try {
          expect(await made.cpvPaths()).toEqual(['cpvCodes', 'cpv']);
          expect((await sync(made, 'lots', elsewhere, { cpvPaths: ['classification.main'] })).recodedFrom).toBeUndefined();
          expect(await made.cpvPaths()).toEqual(['classification.main']);
          expect(ids(await all(made.select({ cpv: ['55'] })))).toEqual(['L2']);
          expect(ids(await all(made.select({ cpv: ['909'] })))).toEqual([]);
        } finally {
          await made.close();
          await fresh.cleanup();
        }
      });
    });

    it("a gone tender's codes leave the counts, and come back with it; a tender another sync holds keeps them", async () => {
      const divisions = async (selection: LocalSelection = {}) => counted(selection, 'cpv', { cpvLevel: 2 });
      const codesOf = async (id: string) => (await engine.rows(location, `SELECT code FROM tender_cpv WHERE id = '${id}' ORDER BY code`)).map(([code]) => code);
      await sync(store, 'all', tenders.slice(1));
      expect(await divisions()).toEqual([
        ['33000000', 2],
        ['45000000', 2],
        [undefined, 1],
      ]);
      expect(await counted({}, 'cpv')).toEqual([
        [undefined, 1],
        ['33100000', 1],
        ['33600000', 1],
        ['45100000', 1],
        ['45233120', 1],
      ]);
      // Through the join to the tenders too (a selection that keeps some).
      expect(await divisions({ buyerIds: ['B1', 'B2'] })).toEqual([
        ['33000000', 1],
        ['45000000', 1],
      ]);
      expect(await selected({ cpv: ['45'] })).toEqual(['T2', 'T5']);
      expect(await codesOf('T1')).toEqual([]);
      await sync(store, 'all', tenders);
      expect(await divisions()).toEqual([
        ['45000000', 3],
        ['33000000', 2],
        [undefined, 1],
      ]);
      expect(await codesOf('T1')).toEqual(['45000000', '45233140']);
      // Gone from one sync, held by another: not gone.
      await sync(store, 'other', [tenders[0]!]);
      await sync(store, 'all', tenders.slice(1));
      expect((await divisions())[0]).toEqual(['45000000', 3]);
      // Forgetting the sync that holds it leaves it to one that holds it as gone.
      await sync(store, 'all', tenders);
      await sync(store, 'other', []);
      expect((await divisions())[0]).toEqual(['45000000', 3]);
      await store.forget('all');
      expect(await codesOf('T1')).toEqual([]);
      expect((await store.count({}, 'cpv', { cpvLevel: 2 })).total).toBe(0);
    });

    it('an older copy keeping the codes of its gone tenders is upgraded: they go, and the country index is ordered by date', async () => {
      await sync(store, 'all', tenders.slice(1));
      await store.close();
      // As the version before wrote it: T1's codes kept though it is gone, the country index of the country alone.
      await engine.exec(
        location,
        `INSERT INTO tender_cpv (id, code) VALUES ('T1', '45000000'), ('T1', '45233140'); DROP INDEX tenders_buyer_country;
         CREATE INDEX tenders_buyer_country ON tenders (buyer_country) WHERE gone_at IS NULL;
         UPDATE meta SET value = '${engine.schemaVersion - 1}' WHERE key = 'schema_version'`,
      );
      store = await open(location);
      expect((await store.status()).schemaVersion).toBe(engine.schemaVersion);
      expect(await engine.rows(location, "SELECT code FROM tender_cpv WHERE id = 'T1'")).toEqual([]);
      expect(await counted({}, 'cpv', { cpvLevel: 2 })).toEqual([
        ['33000000', 2],
        ['45000000', 2],
        [undefined, 1],
      ]);
      const definition = engine.name === 'sqlite' ? "SELECT sql FROM sqlite_schema WHERE name = 'tenders_buyer_country'" : "SELECT indexdef FROM pg_indexes WHERE indexname = 'tenders_buyer_country'";
      expect(String((await engine.rows(location, definition))[0])).toMatch(/\(buyer_country, published, id\)/);
      expect(await selected({ cpv: ['45'], countries: ['DEU'] })).toEqual(['T2', 'T5']);
    });

    it("an older copy's codes are read from its documents when it is upgraded, and the buyer's name found alone", async () => {
      await store.close();
      await engine.exec(location, engine.previousVersion);
      store = await open(location);
      expect(await selected({ cpv: ['45'] })).toEqual(['T1', 'T2', 'T5']);
      expect(await counted({}, 'cpv', { cpvLevel: 2 })).toEqual([
        ['45000000', 3],
        ['33000000', 2],
        [undefined, 1],
      ]);
      expect(await selected({ buyerName: 'koln' })).toEqual(['T1', 'T3']);
      expect((await store.status()).schemaVersion).toBe(engine.schemaVersion);
      // The upgrade wrote the secret tenders serve signs cursors with.
      expect(await store.cursorSecret()).toMatch(/^[\w-]{43}$/);
    });
  });
});
