import type { Responder } from './fake-client.js';

export interface FakeTender {
  id: string;
  title: string;
  status: string;
  publicationDate: string;
  deadline: string | null;
  buyer: { id: string; country: string };
  estimatedValue: { amount: number; currency: string } | null;
}

const day = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);

/**
 * A small service whose data changes between runs: tenders T-1..T-n, one a day
 * (T-n the newest), served newest first (or by deadline) in pages of `limit`,
 * with offset cursors and the total on the first page. Every third buyer is in
 * FRA, the others in DEU (buyerCountries filters).
 */
export class TenderSet {
  readonly tenders = new Map<string, FakeTender>();
  #next = 1;
  #today = 0;

  constructor(n: number) {
    for (let i = 0; i < n; i++) this.insert(1);
  }

  /** Publishes `n` tenders today (a new day each call); returns their ids. */
  insert(n: number): string[] {
    this.#today++;
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const k = this.#next++;
      const id = `T-${k}`;
      this.tenders.set(id, {
        id,
        title: `Tender ${k}`,
        status: 'open',
        publicationDate: day(this.#today),
        deadline: k % 5 === 0 ? null : `${day(this.#today + 30)}T12:00:00Z`,
        buyer: { id: `ORG-${k % 3}`, country: k % 3 === 0 ? 'FRA' : 'DEU' },
        estimatedValue: k % 4 === 0 ? null : { amount: 1000 * k, currency: 'EUR' },
      });
      ids.push(id);
    }
    return ids;
  }

  update(id: string, change: (t: FakeTender) => void): void {
    change(this.tenders.get(id)!);
  }

  remove(id: string): void {
    this.tenders.delete(id);
  }

  /** The tenders in the order of a query: publicationDate desc (then id desc), or deadline asc. */
  ordered(sortBy?: unknown): FakeTender[] {
    const all = [...this.tenders.values()];
    const byNumber = (t: FakeTender) => Number(t.id.slice(2));
    if (sortBy === 'deadline') {
      return all.filter((t) => t.deadline !== null).sort((a, b) => a.deadline!.localeCompare(b.deadline!) || byNumber(a) - byNumber(b));
    }
    return all.sort((a, b) => b.publicationDate.localeCompare(a.publicationDate) || byNumber(b) - byNumber(a));
  }

  readonly respond: Responder = ({ body }) => {
    const countries = body.buyerCountries as string[] | undefined;
    const items = this.ordered(body.sortBy).filter((t) => !countries || countries.includes(t.buyer.country));
    const limit = (body.limit as number | undefined) ?? 25;
    const offset = typeof body.cursor === 'string' ? Number(body.cursor.slice(1)) : 0;
    const end = Math.min(offset + limit, items.length);
    return {
      json: {
        tenders: structuredClone(items.slice(offset, end)),
        page: { nextCursor: end < items.length ? `c${end}` : null, total: body.cursor === undefined ? { count: items.length, capped: false } : null },
      },
    };
  };
}
