import { describe, expect, it } from 'vitest';
import type { FetchedPage } from '../../src/api/cursor-walk.js';
import { Chain, mergePartitions, OrderError, START, type ChainPosition } from '../../src/run/merge.js';
import { ResultOrder } from '../../src/run/sort-order.js';

type Item = Record<string, unknown>;

/** A seeded generator, so a failing case can be replayed. */
function random(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

/** A chain's pages over `items` (already in order), `limit` a page, cursors "c<offset>". */
async function* pagesOf(items: Item[], limit: number, cursor?: string): AsyncGenerator<FetchedPage> {
  let offset = cursor === undefined ? 0 : Number(cursor.slice(1));
  let first = cursor === undefined;
  for (;;) {
    const end = Math.min(offset + limit, items.length);
    const next = end < items.length ? `c${end}` : null;
    yield { items: items.slice(offset, end), nextCursor: next, total: first ? { count: items.length, capped: false } : null, cursor: offset === 0 && first ? undefined : `c${offset}` };
    first = false;
    if (next === null) return;
    offset = end;
  }
}

function chainsOf(parts: Item[][], order: ResultOrder, limit: number, starts: ChainPosition[] = []): Chain[] {
  return parts.map((items, i) => {
    const start = starts[i] ?? START;
    return new Chain(`p${i}`, pagesOf(items, limit, start.cursor ?? undefined), order, start, null, 0);
  });
}

async function collect(chains: Chain[], order: ResultOrder, size: number): Promise<Item[][]> {
  const batches: Item[][] = [];
  for await (const batch of mergePartitions(chains, order, size)) batches.push(batch);
  return batches;
}

const FIELDS = [
  ['publicationDate', (r: () => number) => `2024-0${1 + Math.floor(r() * 3)}-1${Math.floor(r() * 4)}`],
  ['deadline', (r: () => number) => `2025-0${1 + Math.floor(r() * 2)}-0${1 + Math.floor(r() * 3)}T12:00:00Z`],
  ['estimatedValue', (r: () => number) => Math.round(r() * 50) * 1000.5],
] as const;

describe('mergePartitions', () => {
  it('merges random sorted partitions into their sorted union, for every sort field and order (property)', async () => {
    for (let seed = 1; seed <= 150; seed++) {
      const r = random(seed);
      const [field, value] = FIELDS[seed % 3]!;
      const sortOrder = r() < 0.5 ? 'asc' : 'desc';
      const order = new ResultOrder({ sortBy: field, sortOrder });
      const k = 1 + Math.floor(r() * 6);
      const all: Item[] = [];
      for (let i = 0; i < 1 + Math.floor(r() * 120); i++) {
        const v = value(r);
        all.push({ id: `T-${String(i).padStart(4, '0')}`, p: Math.floor(r() * k), ...(field === 'estimatedValue' ? { estimatedValue: { amountEur: v } } : { [field]: v }) });
      }
      const sorted = [...all].sort((a, b) => order.compare(order.place(a)!, order.place(b)!));
      const parts = Array.from({ length: k }, (_, p) => sorted.filter((item) => item.p === p));
      const limit = 1 + Math.floor(r() * 10);
      const size = 1 + Math.floor(r() * 12);
      const batches = await collect(chainsOf(parts, order, limit), order, size);
      expect(batches.flat(), `seed ${seed}`).toEqual(sorted);
      expect(batches.slice(0, -1).every((b) => b.length === size), `seed ${seed}`).toBe(true);
    }
  });

  it('puts the same result from two chains next to each other, first chain first', async () => {
    const order = new ResultOrder({ sortBy: 'deadline', sortOrder: 'asc' });
    const a = [{ id: 'a', deadline: '1' }, { id: 'x', deadline: '2' }, { id: 'z', deadline: '3' }];
    const b = [{ id: 'b', deadline: '1' }, { id: 'x', deadline: '2', from: 'b' }, { id: 'y', deadline: '3' }];
    const merged = (await collect(chainsOf([a, b], order, 2), order, 10)).flat();
    expect(merged.map((item) => item.id)).toEqual(['a', 'b', 'x', 'x', 'y', 'z']);
    expect(merged[3]).toEqual({ id: 'x', deadline: '2', from: 'b' });
  });

  it('breaks ties by id in the direction of the sort, as the service does', async () => {
    const order = new ResultOrder({}); // publicationDate desc
    const a = [{ id: 'T-2', publicationDate: '2024-01-01' }];
    const b = [{ id: 'T-3', publicationDate: '2024-01-01' }, { id: 'T-1', publicationDate: '2024-01-01' }];
    expect((await collect(chainsOf([a, b], order, 5), order, 5)).flat().map((i) => i.id)).toEqual(['T-3', 'T-2', 'T-1']);
  });

  it('continues from saved positions to exactly the rest of the union (resume)', async () => {
    const r = random(7);
    const order = new ResultOrder({ sortBy: 'estimatedValue' });
    const all = Array.from({ length: 90 }, (_, i) => ({ id: `T-${i}`, p: i % 3, estimatedValue: { amountEur: Math.floor(r() * 20) } }));
    const sorted = [...all].sort((a, b) => order.compare(order.place(a)!, order.place(b)!));
    const parts = [0, 1, 2].map((p) => sorted.filter((item) => item.p === p));
    const chains = chainsOf(parts, order, 7);
    const merge = mergePartitions(chains, order, 10);
    const first = [(await merge.next()).value!, (await merge.next()).value!].flat();
    const positions = chains.map((chain) => chain.position());
    await merge.return(undefined);
    const rest = (await collect(chainsOf(parts, order, 7, positions), order, 10)).flat();
    expect([...first, ...rest]).toEqual(sorted);
    expect(positions.some((p) => p.skip > 0)).toBe(true);
  });

  it('reports finished chains as done', async () => {
    const order = new ResultOrder({});
    const chains = chainsOf([[{ id: 'a', publicationDate: '1' }], []], order, 5);
    await collect(chains, order, 5);
    expect(chains.map((c) => c.position())).toEqual([
      { cursor: null, skip: 0, done: true },
      { cursor: null, skip: 0, done: true },
    ]);
    expect(chains[0]!.total).toEqual({ count: 1, capped: false });
  });

  it('ends with an OrderError when a chain is out of order, within a page or across pages', async () => {
    const order = new ResultOrder({ sortBy: 'deadline' });
    const within = [{ id: 'a', deadline: '2' }, { id: 'b', deadline: '1' }];
    await expect(collect(chainsOf([within, []], order, 5), order, 5)).rejects.toThrow(
      /the p0 chain is not in deadline asc \(read from deadline\) order: id "b" \(1\) came after id "a" \(2\)/,
    );
    const across = [{ id: 'a', deadline: '1' }, { id: 'b', deadline: '3' }, { id: 'c', deadline: '2' }];
    await expect(collect(chainsOf([across], order, 2), order, 1)).rejects.toBeInstanceOf(OrderError);
  });

  it('ends with an OrderError when a result lacks the sort value where the merge reads it', async () => {
    const order = new ResultOrder({ sortBy: 'estimatedValue' }, { estimatedValue: 'value.eur' });
    const items = [{ id: 'a', estimatedValue: { amountEur: 5 } }];
    await expect(collect(chainsOf([items], order, 5), order, 5)).rejects.toThrow(/id "a" without a estimatedValue at "value.eur"/);
  });
});

describe('ResultOrder', () => {
  it('defaults the order per sort field as spec 3.2 does, and reads the configured path', () => {
    expect(new ResultOrder({}).describe()).toBe('publicationDate desc (read from publicationDate)');
    expect(new ResultOrder({ sortBy: 'deadline' }).describe()).toBe('deadline asc (read from deadline)');
    expect(new ResultOrder({ sortBy: 'estimatedValue' }).describe()).toBe('estimatedValue desc (read from estimatedValue.amountEur)');
    expect(new ResultOrder({ sortBy: 'deadline', sortOrder: 'desc' }, { deadline: 'dates.due' }).place({ id: 1, dates: { due: 'x' } })).toEqual({ key: 'x', id: 1 });
  });

  it('compares numbers by value, text by code units, bigints as numbers, and nothing else', () => {
    const order = new ResultOrder({ sortBy: 'estimatedValue', sortOrder: 'asc' });
    const at = (v: unknown, id: unknown = 'a') => order.place({ id, estimatedValue: { amountEur: v } })!;
    expect(order.compare(at(9), at(10))).toBeLessThan(0);
    expect(order.compare(at(10n), at(9))).toBeGreaterThan(0);
    expect(order.compare(at(5, 'b'), at(5, 'a'))).toBeGreaterThan(0);
    expect(order.compare(at(5, 2), at(5, 10))).toBeLessThan(0);
    expect(order.place({ id: 'a', estimatedValue: { amountEur: null } })).toBeUndefined();
    expect(order.place({ id: 'a' })).toBeUndefined();
  });
});
