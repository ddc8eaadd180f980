import { describe, expect, it } from 'vitest';
import { cellText, compilePaths, discoverPaths, project, valueAt } from '../../src/model/paths.js';

describe('dot paths', () => {
  it('looks values up by compiled path', () => {
    const [path] = compilePaths(['buyer.name']);
    expect(valueAt({ buyer: { name: 'X' } }, path!)).toBe('X');
    expect(valueAt({ buyer: null }, path!)).toBeUndefined();
    expect(valueAt({}, path!)).toBeUndefined();
  });

  it('discovers leaf paths in order of first appearance, a null parent giving way to its children in place', () => {
    const items = [
      { id: 1, value: null, buyer: { name: 'a', country: 'DEU' }, tags: ['x'] },
      { id: 2, value: { amount: 5, currency: 'EUR' }, buyer: { name: 'b', country: 'FRA' }, extra: true },
    ];
    expect(discoverPaths(items)).toEqual(['id', 'value.amount', 'value.currency', 'buyer.name', 'buyer.country', 'tags', 'extra']);
  });

  it('treats empty objects and arrays as leaves', () => {
    expect(discoverPaths([{ a: {}, b: [] }])).toEqual(['a', 'b']);
  });

  it('projects nested paths, in the order asked, skipping missing ones', () => {
    const item = { id: 1, buyer: { name: 'a', country: 'DEU' }, title: 't' };
    expect(JSON.stringify(project(item, compilePaths(['title', 'buyer.country', 'nope'])))).toBe(
      '{"title":"t","buyer":{"country":"DEU"}}',
    );
  });

  it('renders cells: null and missing empty, nested values as JSON', () => {
    expect(cellText(null)).toBe('');
    expect(cellText(undefined)).toBe('');
    expect(cellText(false)).toBe('false');
    expect(cellText(12.5)).toBe('12.5');
    expect(cellText(['a', 1])).toBe('["a",1]');
  });
});
