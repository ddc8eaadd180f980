/** The page object of a search answer (spec 2.3) and the body around it. */

/** page.total.count stops here; capped says there were more (spec 8). */
export const TOTAL_CAP = 10_000;

export interface Total {
  count: number;
  capped: boolean;
  /** The exact number with no ceiling, when the request asked for it (`exactTotal`, a replica's additive field). */
  exact?: number;
}

/** The total of `count` matches as the service reports it. */
export function cappedTotal(count: number): Total {
  return { count: Math.min(count, TOTAL_CAP), capped: count > TOTAL_CAP };
}

/** A search answer: `items` are JSON texts, joined as they are (a stored document keeps its every digit). */
export function pageBody(key: string, items: readonly string[], next: string | null, total: Total | null): string {
  return `{"${key}":[${items.join(',')}],"page":${JSON.stringify({ nextCursor: next, total })}}`;
}
