import { describe, expect, it } from 'vitest';
import { closeMatches, editDistance } from '../../src/model/close-match.js';
import { UnknownColumns } from '../../src/output/unknown-columns.js';

const fields = ['id', 'title', 'status', 'publicationDate', 'deadline', 'buyer.id', 'buyer.name', 'buyer.country', 'estimatedValue.amountEur', 'cpv'];

describe('close matches', () => {
  it('counts edits, a swap of neighbours as one', () => {
    expect(editDistance('titel', 'title')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('finds typos, other cases and the last part of a dot path, best first', () => {
    expect(closeMatches('buyer.nme', fields)).toEqual(['buyer.name']);
    expect(closeMatches('titel', fields)).toEqual(['title']);
    expect(closeMatches('DEADLINE', fields)).toEqual(['deadline']);
    expect(closeMatches('country', fields)).toEqual(['buyer.country']);
    expect(closeMatches('amountEur', fields)).toEqual(['estimatedValue.amountEur']);
    expect(closeMatches('xyz', fields)).toEqual([]);
    expect(closeMatches('ids', fields)).toEqual(['id']);
  });
});

describe('--columns that match no field', () => {
  const items = [{ id: 'T-1', buyer: { name: 'B', country: 'DEU' }, deadline: null, publicationDate: '2026-01-01' }];
  const warnings = (columns: string[], pages: Record<string, unknown>[][], aliases?: Map<string, string>) => {
    const unknown = new UnknownColumns(columns, aliases);
    for (const page of pages) unknown.scan(page);
    return unknown.warnings('tenders fields');
  };

  it('warns for each, naming close matches and the fields command', () => {
    expect(warnings(['id', 'buyer.nme', 'buyer', 'deadline', 'zzz'], [items])).toEqual([
      "--columns buyer.nme matches no field of any result; did you mean buyer.name? ('tenders fields' lists them)",
      "--columns zzz matches no field of any result ('tenders fields' lists them)",
    ]);
  });

  it('suggests the path behind a table header', () => {
    expect(warnings(['published'], [items], new Map([['published', 'publicationDate']]))).toEqual([
      "--columns published matches no field of any result; did you mean publicationDate? ('tenders fields' lists them)",
    ]);
  });

  it('says nothing about a field that first appears on a later page, even null, nor when there are no results', () => {
    expect(warnings(['id', 'lots', 'notes', 'zzz'], [items, [{ id: 'T-2', lots: 3 }], [], [{ id: 'T-3', notes: null }]])).toEqual([
      "--columns zzz matches no field of any result ('tenders fields' lists them)",
    ]);
    expect(warnings(['nope'], [[]])).toEqual([]);
  });

  it('judges from the first page that has results', () => {
    expect(warnings(['nope'], [[], items])).toHaveLength(1);
  });
});
