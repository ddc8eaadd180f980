import type { Total } from '../api/page.js';

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** "10,000+" when the service stopped counting, else the exact count. */
export function formatTotal(total: Total): string {
  return total.capped ? `${formatCount(total.count)}+` : formatCount(total.count);
}
