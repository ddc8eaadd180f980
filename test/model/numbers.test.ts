import { describe, expect, it } from 'vitest';
import { formatAge, formatCounted } from '../../src/model/numbers.js';

describe('formatAge: how long ago, for people', () => {
  it.each([
    [-5_000, '0 s'],
    [40_400, '40 s'],
    [59_499, '59 s'],
    [60_000, '1 min'],
    [12 * 60_000 + 59_000, '12 min'],
    [3_600_000, '1 h'],
    [23 * 3_600_000 + 3_599_000, '23 h'],
    [86_400_000, '1 d'],
    [5 * 86_400_000 + 3_600_000, '5 d'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatAge(ms)).toBe(text);
  });
});

describe('formatCounted: a count and its noun', () => {
  it('is singular for one, for plurals in s and in es', () => {
    expect(['tenders', 'pages', 'changes', 'duplicates', 'watches', 'boxes'].map((noun) => formatCounted(1, noun))).toEqual([
      '1 tender',
      '1 page',
      '1 change',
      '1 duplicate',
      '1 watch',
      '1 box',
    ]);
    expect(formatCounted(2400, 'watches')).toBe('2,400 watches');
  });
});
