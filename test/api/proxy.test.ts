import { describe, expect, it } from 'vitest';
import { proxyFromEnv, proxyRefusal, redactProxy } from '../../src/api/proxy.js';
import { execute } from '../../src/cli.js';
import { UsageError } from '../../src/errors.js';
import { memoryIO } from '../support/io.js';

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
    // host:port without a scheme is an http:// proxy, as curl reads it; other schemes are undici's to take.
    ['http:', { HTTP_PROXY: 'proxy.example:3128' }, { name: 'HTTP_PROXY', url: 'http://proxy.example:3128' }],
    ['https:', { https_proxy: '10.0.0.1:3128' }, { name: 'https_proxy', url: 'http://10.0.0.1:3128' }],
    ['http:', { HTTP_PROXY: 'socks5://s:1080' }, { name: 'HTTP_PROXY', url: 'socks5://s:1080' }],
  ])('%s %j', (protocol, env, expected) => {
    expect(proxyFromEnv(protocol, env)).toEqual(expected);
  });

  it('refuses what is not a URL with a usage error naming the variable, without its password', () => {
    expect(() => proxyFromEnv('http:', { HTTP_PROXY: 'http://alice:s3cret@proxy example:3128' })).toThrow(
      new UsageError('HTTP_PROXY is not a proxy URL (http://proxy example:3128): set it as http://host:port'),
    );
    expect(() => proxyFromEnv('https:', { HTTPS_PROXY: 'http://[::1' })).toThrow(UsageError);
  });
});

describe('a proxy variable that is not a URL, through the CLI', () => {
  it('is exit 2 with one line, before any request', async () => {
    const t = memoryIO({ env: { TENDERS_BASE_URL: 'http://127.0.0.1:9', HTTP_PROXY: 'http://proxy host:3128' } });
    expect(await execute(['count'], t.io)).toBe(2);
    expect(t.stderr.text).toBe('tenders: HTTP_PROXY is not a proxy URL (http://proxy host:3128): set it as http://host:port\n');
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
