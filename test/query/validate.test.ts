import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { tenderBody } from '../../src/query/tender-body.js';
import {
  parseBaseUrl,
  parseColumns,
  parseCountries,
  parseDurationMs,
  parseInteger,
  parseLimit,
  parseOrder,
  parseSort,
} from '../../src/query/validate.js';

describe('flag validation', () => {
  it('splits repeatable, comma-separated country codes and upper-cases them', () => {
    expect(parseCountries(['fra,Ita', 'DEU'])).toEqual(['FRA', 'ITA', 'DEU']);
  });

  it.each([['FR'], ['FRAN'], ['F1A'], ['FRA,,ITA'], ['']])('refuses the country list %j', (value) => {
    expect(() => parseCountries([value])).toThrow(UsageError);
  });

  it('accepts sort fields case-insensitively and returns the canonical name', () => {
    expect(parseSort('DEADLINE')).toBe('deadline');
    expect(parseSort('estimatedvalue')).toBe('estimatedValue');
    expect(() => parseSort('title')).toThrow(/publicationDate, deadline, estimatedValue/);
  });

  it('reads a time span as milliseconds: 500ms, 5s, 2m, plain milliseconds; refuses the rest', () => {
    expect(['500ms', '5s', '2m', '250', '1.5s', ' 1ms '].map((v) => parseDurationMs('--query-timeout', v))).toEqual([500, 5000, 120_000, 250, 1500, 1]);
    for (const bad of ['0', '0.2ms', '5h', 'soon', '-1s', '', '2d', '25h'])
      expect(() => parseDurationMs('--query-timeout', bad)).toThrow(/^--query-timeout takes a time such as 500ms, 5s or 2m/);
  });

  it('accepts asc/desc only', () => {
    expect(parseOrder('DESC')).toBe('desc');
    expect(() => parseOrder('up')).toThrow(UsageError);
  });

  it.each(['0', '101', '2.5', '1e2', '-1', 'ten', ''])('refuses the limit %j', (value) => {
    expect(() => parseLimit(value)).toThrow(/--limit takes a whole number from 1 to 100/);
  });

  it('accepts limits 1 and 100', () => {
    expect(parseLimit('1')).toBe(1);
    expect(parseLimit('100')).toBe(100);
  });

  it('parses unbounded integers with a minimum', () => {
    expect(parseInteger('--retries', '0', 0)).toBe(0);
    expect(() => parseInteger('--max', '0', 1)).toThrow('--max takes a whole number 1 or more');
  });

  it('accepts only http and https base URLs and explains how to set one', () => {
    expect(parseBaseUrl('http://127.0.0.1:8080/prefix')).toEqual({ url: new URL('http://127.0.0.1:8080/prefix') });
    expect(() => parseBaseUrl(undefined)).toThrow(/TENDERS_BASE_URL/);
    expect(() => parseBaseUrl('ftp://example.org')).toThrow(/http: or https:/);
    expect(() => parseBaseUrl('not a host')).toThrow(/not a URL/);
  });

  it('suggests the scheme a base URL without one needs: http for this machine or another port, else https', () => {
    expect(() => parseBaseUrl('localhost:8787')).toThrow("the base URL 'localhost:8787' has no scheme: did you mean http://localhost:8787?");
    expect(() => parseBaseUrl('127.0.0.1:8787/')).toThrow('did you mean http://127.0.0.1:8787?');
    expect(() => parseBaseUrl('tenders.example.org')).toThrow('did you mean https://tenders.example.org?');
    expect(() => parseBaseUrl('tenders.example.org:8080')).toThrow('did you mean http://tenders.example.org:8080?');
  });

  it('drops an /api/v1 the base URL ends in (the CLI adds it), and says so', () => {
    expect(parseBaseUrl('http://h:1/api/v1/')).toEqual({ url: new URL('http://h:1/'), note: expect.stringMatching(/ends in \/api\/v1.*: using http:\/\/h:1$/) });
    expect(parseBaseUrl('https://h/tenders/api/v1').url.href).toBe('https://h/tenders');
    expect(parseBaseUrl('https://h/api/v1x').url.pathname).toBe('/api/v1x');
  });

  it('parses column paths', () => {
    expect(parseColumns('id, buyer.name')).toEqual(['id', 'buyer.name']);
    expect(() => parseColumns('id,buyer.')).toThrow(UsageError);
  });
});

describe('tender request body', () => {
  it('maps every flag to its field and omits what is not given', () => {
    expect(tenderBody({})).toEqual({});
    expect(
      tenderBody({
        country: ['fra,ita'],
        status: ['open'],
        sort: 'Deadline',
        order: 'ASC',
        limit: '50',
        filter: ['minValue=1000', 'query=bridge', 'tags=["a","b"]', 'flag=true'],
      }),
    ).toEqual({
      limit: 50,
      sortBy: 'deadline',
      sortOrder: 'asc',
      buyerCountries: ['FRA', 'ITA'],
      statuses: ['open'],
      minValue: 1000,
      query: 'bridge',
      tags: ['a', 'b'],
      flag: true,
    });
  });

  it('uses the default limit only when --limit is absent', () => {
    expect(tenderBody({}, 100)).toEqual({ limit: 100 });
    expect(tenderBody({ limit: '7' }, 100)).toEqual({ limit: 7 });
  });

  it('refuses --filter without KEY= and for fields that have their own flag', () => {
    expect(() => tenderBody({ filter: ['=x'] })).toThrow(/KEY=VALUE/);
    expect(() => tenderBody({ filter: ['novalue'] })).toThrow(/KEY=VALUE/);
    expect(() => tenderBody({ filter: ['limit=5'] })).toThrow(/--limit/);
    expect(() => tenderBody({ status: ['open,'] })).toThrow(/--status/);
  });

  it('takes any KEY, also names of Object.prototype', () => {
    const body = tenderBody({ filter: ['constructor=1', '__proto__={"x":1}', 'toString=a'] });
    expect(JSON.stringify(body)).toBe('{"constructor":1,"__proto__":{"x":1},"toString":"a"}');
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
  });

  it('keeps a VALUE that is not JSON as a string, including an empty one', () => {
    expect(tenderBody({ filter: ['cpv=45*', 'note='] })).toEqual({ cpv: '45*', note: '' });
  });
});
