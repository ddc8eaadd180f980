import { describe, expect, it } from 'vitest';
import { queryKey } from '../../src/model/query-key.js';
import { RawNumber } from '../../src/model/exact-json.js';

const q = (body: Record<string, unknown>, org: string | null = null) => ({ org, body });

describe('queryKey', () => {
  it('is one for queries that ask the same: keys, a filter\'s values and the default order in any form', () => {
    expect(queryKey(q({ statuses: ['open'], buyerCountries: ['FRA', 'DEU'] }))).toBe(queryKey(q({ buyerCountries: ['DEU', 'FRA', 'DEU'], statuses: ['open'] })));
    expect(queryKey(q({ sortBy: 'deadline', sortOrder: 'asc' }))).toBe(queryKey(q({ sortBy: 'deadline' })));
    expect(queryKey(q({ sortBy: 'publicationDate', sortOrder: 'desc' }))).toBe(queryKey(q({})));
    expect(queryKey(q({ n: new RawNumber('12345678901234567890') }))).toBe(queryKey(q({ n: new RawNumber('12345678901234567890') })));
  });

  it('tells apart queries that ask differently', () => {
    expect(queryKey(q({ sortBy: 'deadline', sortOrder: 'desc' }))).not.toBe(queryKey(q({ sortBy: 'deadline' })));
    expect(queryKey(q({ sortOrder: 'asc' }))).not.toBe(queryKey(q({})));
    expect(queryKey(q({ buyerCountries: ['DEU'] }))).not.toBe(queryKey(q({ buyerCountries: ['DEU', 'FRA'] })));
    expect(queryKey(q({}, 'ORG-1'))).not.toBe(queryKey(q({})));
    expect(queryKey(q({ range: [{ a: 2 }, { a: 1 }] }))).not.toBe(queryKey(q({ range: [{ a: 1 }, { a: 2 }] })));
  });
});
