import { describe, expect, it } from 'vitest';
import { proxyFromEnv, proxyRefusal, redactProxy } from '../../src/api/proxy.js';

describe('proxyFromEnv: the variable undici 7 takes the proxy from', () => {
  it.each([
    ['http:', { HTTP_PROXY: 'http://a:1' }, { name: 'HTTP_PROXY', url: 'http://a:1' }],
    ['http:', { http_proxy: 'http://b:1', HTTP_PROXY: 'http://a:1' }, { name: 'http_proxy', url: 'http://b:1' }],
    ['http:', { HTTPS_PROXY: 'http://a:1' }, undefined],
    ['https:', { HTTPS_PROXY: 'http://s:1', HTTP_PROXY: 'http://a:1' }, { name: 'HTTPS_PROXY', url: 'http://s:1' }],
    ['https:', { https_proxy: 'http://t:1', HTTPS_PROXY: 'http://s:1' }, { name: 'https_proxy', url: 'http://t:1' }],
    ['https:', { HTTP_PROXY: 'http://a:1' }, { name: 'HTTP_PROXY', url: 'http://a:1' }],
    // An empty lower-case variable hides the upper-case one, and counts as unset.
    ['http:', { http_proxy: '', HTTP_PROXY: 'http://a:1' }, undefined],
    ['https:', { https_proxy: '', HTTP_PROXY: 'http://a:1' }, { name: 'HTTP_PROXY', url: 'http://a:1' }],
  ])('%s %j', (protocol, env, expected) => {
    expect(proxyFromEnv(protocol, env)).toEqual(expected);
  });
});

describe('redactProxy', () => {
  it.each([
    ['http://127.0.0.1:3128', 'http://127.0.0.1:3128'],
    ['http://alice:s3cret@proxy.example:3128/', 'http://proxy.example:3128'],
    ['http://alice:p%40ss%3Aw@proxy.example', 'http://proxy.example'],
    ['http://token@proxy.example:8080', 'http://proxy.example:8080'],
    ['not a url://alice:s3cret@proxy', 'not a url://proxy'],
  ])('%s', (url, printed) => {
    expect(redactProxy(url)).toBe(printed);
  });
});

describe("proxyRefusal reads undici's errors", () => {
  it('a 407 to a forwarded request, a refused CONNECT, nothing else', () => {
    expect(proxyRefusal(new Error('Proxy Authentication Required (407)'))).toEqual({ status: 407, tunnel: false });
    expect(proxyRefusal(new Error('Proxy response (403) !== 200 when HTTP Tunneling'))).toEqual({ status: 403, tunnel: true });
    expect(proxyRefusal(new Error('Proxy response (407) !== 200 when HTTP Tunneling'))).toEqual({ status: 407, tunnel: true });
    expect(proxyRefusal(new Error('connect ECONNREFUSED 127.0.0.1:9'))).toBeUndefined();
  });
});
