import type { Total } from '../model/total.js';

/** Numbers for people: "10,000+", "1,234". */

export function formatCount(n: number): string {
  // Not toLocaleString: loading ICU's data for it costs a run tens of milliseconds.
  return Number.isSafeInteger(n) ? String(n).replace(/\B(?=(\d{3})+$)/g, ',') : n.toLocaleString('en-US');
}

/** "10,000+" when the service stopped counting, else the exact count. */
export function formatTotal(total: Total): string {
  return total.capped ? `${formatCount(total.count)}+` : formatCount(total.count);
}
