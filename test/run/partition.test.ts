import { describe, expect, it } from 'vitest';
import { partitionBy, partitionQuery } from '../../src/run/partition.js';

describe('partitionQuery', () => {
  it('splits by country when the query names two or more, keeping the rest of the body', () => {
    const body = { limit: 100, buyerCountries: ['DEU', 'FRA'], statuses: ['open', 'closed'], sortBy: 'deadline' };
    expect(partitionQuery(body)).toEqual({
      by: 'country',
      partitions: [
        { value: 'DEU', body: { ...body, buyerCountries: ['DEU'] } },
        { value: 'FRA', body: { ...body, buyerCountries: ['FRA'] } },
      ],
    });
  });

  it('splits by status when there are fewer than two countries', () => {
    const body = { buyerCountries: ['DEU'], statuses: ['open', 'closed'] };
    const { by, partitions } = partitionQuery(body);
    expect(by).toBe('status');
    expect(partitions.map((p) => p.body)).toEqual([
      { buyerCountries: ['DEU'], statuses: ['open'] },
      { buyerCountries: ['DEU'], statuses: ['closed'] },
    ]);
  });

  it('leaves a query with nothing to split as one chain, and walks a repeated value once', () => {
    expect(partitionQuery({ buyerCountries: ['DEU'], statuses: ['open'] })).toEqual({ partitions: [{ body: { buyerCountries: ['DEU'], statuses: ['open'] } }] });
    expect(partitionQuery({ buyerCountries: ['DEU', 'DEU'] }).by).toBeUndefined();
  });
});

describe('partitionBy', () => {
  it('gives one partition per value, even one, and none when the query names none', () => {
    expect(partitionBy({ statuses: ['open'] }, 'status')).toEqual([{ value: 'open', body: { statuses: ['open'] } }]);
    expect(partitionBy({ statuses: ['open'] }, 'country')).toEqual([]);
  });
});
