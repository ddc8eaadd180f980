import type { Total } from '../model/total.js';
import type { FetchedPage } from '../api/cursor-walk.js';
import { stringifyJson } from '../model/exact-json.js';
import { RunError } from '../errors.js';
import type { Placed, ResultOrder } from './sort-order.js';

/**
 * Where a chain's unwritten results start: the cursor of the page that holds
 * them (null: the first page) and how many of that page's results were taken.
 */
export interface ChainPosition {
  cursor: string | null;
  skip: number;
  done: boolean;
}

export const START: ChainPosition = { cursor: null, skip: 0, done: false };

/** A chain's results are not in the order the merge assumes: a mis-sorted file would follow. */
export class OrderError extends RunError {
  override name = 'OrderError';
}

interface Entry {
  item: Record<string, unknown>;
  placed: Placed;
}

/**
 * One partition's pages, read a result at a time by the merge. Every page is
 * checked against the order as it arrives, against the page before it too.
 */
export class Chain {
  /** Pages fetched, by this run and the interrupted one it resumes. */
  pages: number;
  total: Total | null;
  #entries: Entry[] = [];
  #index = 0;
  #pageCursor: string | null = null;
  #nextCursor: string | null;
  #skip: number;
  #ended: boolean;
  #last: Entry | undefined;

  constructor(
    readonly label: string,
    private readonly source: AsyncIterator<FetchedPage>,
    private readonly order: ResultOrder,
    start: ChainPosition,
    total: Total | null,
    pages: number,
  ) {
    this.pages = pages;
    this.#nextCursor = start.cursor;
    this.#skip = start.skip;
    this.#ended = start.done;
    this.total = total;
  }

  /** Its current page is used up and another follows. */
  get hungry(): boolean {
    return this.#index >= this.#entries.length && !this.#ended;
  }

  /** The next result in order, when one is at hand. */
  get head(): Entry | undefined {
    return this.#entries[this.#index];
  }

  /** Reaches the next page (skipping empty ones) when the current one is used up. */
  async fill(): Promise<void> {
    while (this.hungry) {
      const next = await this.source.next();
      if (next.done) {
        this.#ended = true;
        break;
      }
      const page = next.value;
      this.pages++;
      if (page.cursor === undefined && page.total) this.total = page.total;
      this.#entries = this.#check(page.items);
      this.#pageCursor = page.cursor ?? null;
      this.#nextCursor = page.nextCursor;
      this.#ended = page.nextCursor === null;
      // A resumed chain starts inside the page its checkpoint named.
      this.#index = Math.min(this.#skip, this.#entries.length);
      this.#skip = 0;
    }
  }

  take(): Record<string, unknown> {
    return this.#entries[this.#index++]!.item;
  }

  position(): ChainPosition {
    if (this.#index < this.#entries.length) return { cursor: this.#pageCursor, skip: this.#index, done: false };
    if (this.#ended) return { cursor: null, skip: 0, done: true };
    return { cursor: this.#nextCursor, skip: this.#skip, done: false };
  }

  #check(items: Record<string, unknown>[]): Entry[] {
    const entries = new Array<Entry>(items.length);
    let previous = this.#last;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      const placed = this.order.place(item);
      if (!placed) {
        throw new OrderError(
          `the ${this.label} chain returned ${describe(item.id)} without a ${this.order.field} at "${this.order.path}", ` +
            'so --parallel cannot merge it in order: set the field\'s path with --sort-path, or run without --parallel',
        );
      }
      if (previous && this.order.compare(previous.placed, placed) > 0) {
        throw new OrderError(
          `the ${this.label} chain is not in ${this.order.describe()} order: ${describe(item.id)} (${placed.key}) came after ` +
            `${describe(previous.item.id)} (${previous.placed.key}); the merge of --parallel relies on that order: ` +
            'check --sort-path, or run without --parallel',
        );
      }
      entries[i] = previous = { item, placed };
    }
    this.#last = previous;
    return entries;
  }
}

const describe = (id: unknown) => (id === undefined || id === null ? 'a result without id' : `id ${stringifyJson(id)}`);

/**
 * A k-way merge of the chains in the order they share: batches of `size`
 * results (the last may be smaller), each the next results of the union in
 * order. Results that compare equal (the same tender from two chains) come out
 * next to each other, so the caller's boundary dedupe drops the repeats.
 * Memory: each chain's current page, plus the one its pager fetches ahead.
 */
export async function* mergePartitions(chains: readonly Chain[], order: ResultOrder, size: number): AsyncGenerator<Record<string, unknown>[]> {
  for (;;) {
    const batch: Record<string, unknown>[] = [];
    while (batch.length < size) {
      const hungry = chains.filter((chain) => chain.hungry);
      if (hungry.length > 0) await Promise.all(hungry.map((chain) => chain.fill()));
      let first: Chain | undefined;
      for (const chain of chains) {
        const head = chain.head;
        if (head && (!first || order.compare(head.placed, first.head!.placed) < 0)) first = chain;
      }
      if (!first) break;
      batch.push(first.take());
    }
    if (batch.length === 0) return;
    yield batch;
  }
}
