/** `page.total`: how many results match; `capped` when the service stopped counting (10 000+). */
export interface Total {
  count: number;
  capped: boolean;
}

/** The sum of counts: exact unless one of them is capped, then a lower bound. */
export function sumTotals(totals: readonly Total[]): Total {
  return { count: totals.reduce((n, total) => n + total.count, 0), capped: totals.some((total) => total.capped) };
}
