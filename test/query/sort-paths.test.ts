import { describe, expect, it } from 'vitest';
import { parseSortPaths } from '../../src/query/sort-paths.js';

describe('parseSortPaths', () => {
  it('reads FIELD=PATH from the environment, then the flags (which win), fields case-insensitive', () => {
    expect(parseSortPaths(undefined, {})).toEqual({});
    expect(parseSortPaths(['deadline=dates.due', 'ESTIMATEDVALUE=value.eur'], { TENDERS_SORT_PATHS: 'deadline=x,publicationDate=published' })).toEqual({
      deadline: 'dates.due',
      estimatedValue: 'value.eur',
      publicationDate: 'published',
    });
  });

  it.each(['deadline', 'deadline=', 'size=x', 'deadline=a..b', '=x'])('refuses %s', (pair) => {
    expect(() => parseSortPaths([pair], {})).toThrow(/--sort-path takes FIELD=PATH/);
  });
});
