import { describe, expect, it } from 'vitest';
import { bearerMatches } from '../../src/serve/auth.js';
import { parseListen } from '../../src/serve/listen.js';
import { accessLine } from '../../src/serve/access-log.js';

describe('--listen', () => {
  it('takes HOST:PORT and [IPv6]:PORT, and knows loopback (127.0.0.0/8, ::1, localhost) from the rest', () => {
    expect(parseListen('127.0.0.1:8787')).toEqual({ host: '127.0.0.1', port: 8787, loopback: true });
    expect(parseListen('127.9.0.3:0')).toMatchObject({ port: 0, loopback: true });
    expect(parseListen('[::1]:80')).toEqual({ host: '::1', port: 80, loopback: true });
    expect(parseListen('localhost:1')).toMatchObject({ loopback: true });
    for (const text of ['0.0.0.0:8787', '[::]:8787', '192.168.1.2:80', '128.0.0.1:80', 'example.org:80']) expect(parseListen(text).loopback).toBe(false);
    for (const text of ['8787', '127.0.0.1', '127.0.0.1:65536', ':80', '::1:80', '127.0.0.1:8o']) expect(() => parseListen(text)).toThrow(/--listen: .* is not HOST:PORT/);
  });
});

describe('the bearer token', () => {
  it('matches the token alone, whatever the scheme case; missing, empty and near tokens do not', () => {
    expect(bearerMatches('Bearer s3cret', 's3cret')).toBe(true);
    expect(bearerMatches('bearer s3cret', 's3cret')).toBe(true);
    for (const header of [undefined, '', 'Bearer ', 'Bearer s3cre', 'Bearer s3cret2', 'Basic s3cret', 's3cret']) expect(bearerMatches(header, 's3cret')).toBe(false);
  });
});

describe('the access log', () => {
  it('is one line whatever the path holds', () => {
    expect(accessLine('POST', '/a\nGET /forged 200', 200, 12, 3.14)).toBe('POST /a%0AGET%20/forged%20200 200 12 3.1ms');
  });
});
