import { describe, expect, it } from 'vitest';
import { formatAge } from '../../src/model/numbers.js';

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
