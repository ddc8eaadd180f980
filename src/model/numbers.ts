import type { Total } from './total.js';

/** Numbers for people: "10,000+", "1,234". */

export function formatCount(n: number): string {
  // Not toLocaleString: loading ICU's data for it costs a run tens of milliseconds.
  return Number.isSafeInteger(n) ? groupDigits(String(n)) : n.toLocaleString('en-US');
}

/**
 * String(n)'s text, made without V8's number-to-string cache. String() and
 * template literals remember each number's text in that cache, a table in the
 * old generation, until another number takes its slot; a text it remembers
 * outlives two minor GCs and is promoted. An export of distinct amounts then
 * keeps a page's worth of texts alive at every GC: the young generation grows
 * to its maximum and garbage piles up in the old one, so peak memory grows
 * with the length of the export. JSON.stringify writes a finite number's
 * digits (by the spec, ToString's) into a new string it does not remember.
 */
export function numberText(n: number): string {
  return Number.isFinite(n) ? JSON.stringify(n) : String(n);
}

/** "1234567.5" → "1,234,567.5": a number's own digits, the whole part grouped; an exponent form is left alone. */
export function groupDigits(text: string): string {
  const match = /^(-?)(\d+)(\.\d+)?$/.exec(text);
  if (!match) return text;
  return match[1]! + match[2]!.replace(/\B(?=(\d{3})+$)/g, ',') + (match[3] ?? '');
}

/** "1 tender", "2,400 tenders", "1 watch": a count and its noun, singular for one (`plural` ends in s, or es after ch, sh, x or ss). */
export function formatCounted(n: number, plural: string): string {
  return `${formatCount(n)} ${n === 1 ? plural.replace(/(ch|sh|x|ss)es$|s$/, '$1') : plural}`;
}

/** "10,000+" when the service stopped counting, else the exact count. */
export function formatTotal(total: Total): string {
  return total.capped ? `${formatCount(total.count)}+` : formatCount(total.count);
}

const UNITS = {
  si: { base: 1000, names: ['B', 'kB', 'MB', 'GB', 'TB'] },
  iec: { base: 1024, names: ['B', 'KiB', 'MiB', 'GiB', 'TiB'] },
};

/** "1.2 MB": decimal units, as file managers and `ls -h --si` show sizes. */
export function formatSize(bytes: number): string {
  return scaled(bytes, UNITS.si);
}

/** "16.0 MiB": for a size defined in powers of two (a limit), said in binary units. */
export function formatBinarySize(bytes: number): string {
  return scaled(bytes, UNITS.iec);
}

/** The one byte formatter behind both. */
function scaled(bytes: number, { base, names: units }: { base: number; names: string[] }): string {
  let value = bytes;
  let unit = 0;
  while (value >= base && unit < units.length - 1) {
    value /= base;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** "3.1 s", "4 min 12 s". */
export function formatDuration(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

/** How long ago, for people: "40 s", "12 min", "3 h", "5 d". */
export function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86400)} d`;
}
