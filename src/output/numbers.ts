/** Numbers for people: "10,000+", "1,234". */

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** "10,000+" when the service stopped counting, else the exact count. */
export function formatTotal(total: { count: number; capped: boolean }): string {
  return total.capped ? `${formatCount(total.count)}+` : formatCount(total.count);
}
