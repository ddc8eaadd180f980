import { describe, expect, it } from 'vitest';
import { DEFAULT_CPV_PATHS, parseCpvPaths, tenderCpvCodes } from '../../src/model/cpv.js';

describe('cpv-paths', () => {
  it('takes comma-separated dot paths, trimmed, each once; an empty path or part is no list', () => {
    expect(parseCpvPaths('lots.cpv, mainCpv ,lots.cpv')).toEqual(['lots.cpv', 'mainCpv']);
    expect(parseCpvPaths('cpvCodes')).toEqual(['cpvCodes']);
    for (const bad of ['', ' ', 'a,,b', 'a,', 'lots..cpv', '.cpv', 'cpv.']) expect(parseCpvPaths(bad), bad).toBeUndefined();
  });

  it("reads a tender's codes at each path in order, through objects and every item of an array, each once", () => {
    const tender = {
      cpv: '45000000-7',
      cpvCodes: ['45233140', 'no code', 7, '45000000'],
      lots: [{ cpv: '90910000' }, { cpv: ['79410000-1', '45233140'] }, { title: 'none' }, 'text'],
      classification: { main: { id: '55524000' } },
    };
    expect(tenderCpvCodes(tender, DEFAULT_CPV_PATHS)).toEqual(['45233140', '45000000']);
    expect(tenderCpvCodes(tender, ['lots.cpv', 'classification.main.id', 'cpv'])).toEqual(['90910000', '79410000', '45233140', '55524000', '45000000']);
    expect(tenderCpvCodes(tender, ['lots', 'classification.main', 'missing.path'])).toEqual([]);
    // Keys are data: an inherited name is no field.
    expect(tenderCpvCodes({ a: {} }, ['a.constructor', 'toString'])).toEqual([]);
  });
});
