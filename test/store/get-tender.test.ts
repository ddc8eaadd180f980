import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { engines, open, sync } from './engines.js';

/** store.getTender, the read of `tenders show`: one tender by id with when it came and went, in both engines. */
describe.each(engines)('getTender ($name)', (engine) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    let location: string;
    ({ location, cleanup } = await engine.location());
    store = await open(location);
  });
  afterEach(async () => {
    await store.close();
    await cleanup();
  });

  const tender = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    title: `Tender ${id}`,
    status: 'open',
    buyer: { id: 'B1', name: 'City of Lyon', country: 'FRA' },
    estimatedValue: { amount: 12345678901234567890n.toString(), currency: 'EUR' },
    cpvCodes: ['45233140-2', '90910000'],
    ...extra,
  });

  it('gives the document as last stored, when it was first seen and gone, and the syncs that hold it', async () => {
    expect(await store.getTender('A')).toBeUndefined(); // a copy no sync has made yet
    const first = await sync(store, 'roads', [tender('A'), tender('B')]);
    await sync(store, 'lyon', [tender('A')]);
    const second = await sync(store, 'roads', [tender('B', { status: 'closed' })]);

    const a = await store.getTender('A');
    expect(a).toEqual({ tender: tender('A'), firstSeen: expect.any(String), goneAt: null, syncs: ['lyon', 'roads'] });
    // Seen first by the first run, between its start and its end.
    expect(a!.firstSeen >= first.startedAt && a!.firstSeen <= first.endedAt).toBe(true);
    const b = await store.getTender('B');
    expect(b).toEqual({ tender: tender('B', { status: 'closed' }), firstSeen: a!.firstSeen, goneAt: null, syncs: ['roads'] });
    expect(await store.getTender('C')).toBeUndefined();

    await sync(store, 'lyon', []);
    await sync(store, 'roads', []);
    const gone = await store.getTender('B');
    expect(gone?.goneAt).not.toBeNull();
    expect(gone!.goneAt! >= second.endedAt).toBe(true);
  });
});
