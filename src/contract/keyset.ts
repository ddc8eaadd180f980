import type { Position } from './cursor.js';

/** A sort value: a text (dates as ISO text compare as instants) or a number. */
export type Key = string | number;

/** Ascending (key, id) order: the keyset the cursors point into. */
export function compareKeys(aKey: Key, aId: string, bKey: Key, bId: string): number {
  if (aKey !== bKey) return aKey < bKey ? -1 : 1;
  return aId === bId ? 0 : aId < bId ? -1 : 1;
}

/** First index in `list` (sorted in `order` by keyOf) strictly after `pos` in that order. */
export function seek<T>(list: readonly T[], pos: Position, keyOf: (item: T) => [Key, string], order: 'asc' | 'desc'): number {
  const sign = order === 'asc' ? 1 : -1;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const [key, id] = keyOf(list[mid]!);
    if (sign * compareKeys(key, id, pos.key, pos.id) > 0) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
