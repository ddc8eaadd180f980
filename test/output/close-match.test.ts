import { describe, expect, it } from 'vitest';
import { closeMatches, editDistance } from '../../src/output/close-match.js';
import { unknownColumnWarnings } from '../../src/output/unknown-columns.js';

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

  it('warns for each, naming close matches and the fields command', () => {
    expect(unknownColumnWarnings(['id', 'buyer.nme', 'buyer', 'deadline', 'zzz'], items, 'tenders fields')).toEqual([
      "--columns buyer.nme matches no field of the first page; did you mean buyer.name? ('tenders fields' lists them)",
      "--columns zzz matches no field of the first page ('tenders fields' lists them)",
    ]);
  });

  it('suggests the path behind a table header', () => {
    const aliases = new Map([['published', 'publicationDate']]);
    expect(unknownColumnWarnings(['published'], items, 'tenders fields', aliases)).toEqual([
      "--columns published matches no field of the first page; did you mean publicationDate? ('tenders fields' lists them)",
    ]);
  });

  it('says nothing about an empty first page', () => {
    expect(unknownColumnWarnings(['nope'], [], 'tenders fields')).toEqual([]);
  });
});
