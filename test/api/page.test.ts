import { describe, expect, it } from 'vitest';
import { BoundaryDeduper } from '../../src/run/dedupe.js';
import { readPage } from '../../src/api/page.js';

describe('reading a page', () => {
  it('finds the results as the one array beside page, whatever its key', () => {
    const page = readPage({ organisations: [{ id: 1 }], page: { nextCursor: 'c', total: { count: 1, capped: false } } }, 200, '/x');
    expect(page).toEqual({ items: [{ id: 1 }], nextCursor: 'c', total: { count: 1, capped: false } });
  });

  it.each([
    ['not an object', [1, 2], /not a JSON object/],
    ['no page', { tenders: [] }, /no "page" object/],
    ['no array', { page: { nextCursor: null, total: null } }, /no results array/],
    ['two arrays', { a: [], b: [], page: { nextCursor: null, total: null } }, /several arrays beside "page" \(a, b\)/],
    ['bad cursor', { t: [], page: { nextCursor: 5, total: null } }, /nextCursor/],
    ['bad total', { t: [], page: { nextCursor: null, total: { count: '3' } } }, /page.total/],
    ['non-object results', { t: [1], page: { nextCursor: null, total: null } }, /other than objects/],
  ])('rejects a body with %s', (_name, body, message) => {
    expect(() => readPage(body, 200, '/api/v1/tenders/search')).toThrow(message);
  });
});

describe('boundary duplicates', () => {
  it('drops results seen on the last two pages, keeps everything else', () => {
    const dedupe = new BoundaryDeduper();
    const ids = (items: { id: string }[]) => items.map((i) => i.id);
    expect(ids(dedupe.filter([{ id: 'a' }, { id: 'b' }]))).toEqual(['a', 'b']);
    expect(ids(dedupe.filter([{ id: 'b' }, { id: 'c' }]))).toEqual(['c']);
    expect(ids(dedupe.filter([{ id: 'a' }, { id: 'd' }]))).toEqual(['d']);
    expect(ids(dedupe.filter([{ id: 'a' }]))).toEqual(['a']); // three pages back: forgotten, bounded memory
    expect(dedupe.dropped).toBe(2);
  });

  it('carries its memory across a resume exactly: the same output as without the break', () => {
    const pages = [[{ id: 'a' }], [{ id: 'b' }], [{ id: 'a' }, { id: 'c' }], [{ id: 'b' }, { id: 'd' }]];
    const whole = new BoundaryDeduper();
    const expected = pages.map((p) => whole.filter(p));
    const first = new BoundaryDeduper();
    const before = pages.slice(0, 2).map((p) => first.filter(p));
    const resumed = new BoundaryDeduper(JSON.parse(JSON.stringify(first.recentIds())));
    expect([...before, ...pages.slice(2).map((p) => resumed.filter(p))]).toEqual(expected);
    expect(expected[3]).toEqual([{ id: 'd' }]); // 'b' of the page before last is still remembered
  });
});
