import { describe, expect, it } from 'vitest';
import { proxyFromEnv, proxyRefusal, redactProxy } from '../../src/api/proxy.js';
import { execute } from '../../src/cli.js';
import { UsageError } from '../../src/errors.js';
import { memoryIO } from '../support/io.js';
import { startProxy, type ForwardProxy, type ProxyOptions } from '../support/proxy.js';
import { json, startScripted } from '../support/scripted-server.js';

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

describe('a proxy that refuses, in-process (the real client, a real proxy on loopback)', () => {
  const SEARCH = '/api/v1/tenders/search';

  /** `tenders count` against a service on loopback through `proxy`, with `env` naming it; the proxy and service are closed after. */
  async function countThrough(options: (serviceHost: string) => ProxyOptions, env: (proxy: ForwardProxy) => Record<string, string>, https = false) {
    const service = await startScripted(() => json(200, { tenders: [], page: { nextCursor: null, total: { count: 0, capped: false } } }));
    const proxy = await startProxy(options(new URL(service.url).host));
    try {
      const baseUrl = https ? service.url.replace('http:', 'https:') : service.url;
      const t = memoryIO({ env: { TENDERS_BASE_URL: baseUrl, ...env(proxy) } });
      const code = await execute(['count', '--retries', '2'], t.io);
      return { code, stderr: t.stderr.text, proxy: proxy.requests.map((r) => [r.method, r.status]), service: service.requests.length };
    } finally {
      await proxy.close();
      await service.close();
    }
  }

  it('a 407 without credentials asks for them in the variable that named the proxy, once, exit 1', async () => {
    const r = await countThrough(() => ({ credentials: { user: 'alice', password: 's3cret' } }), (p) => ({ HTTP_PROXY: p.url }));
    expect(r.stderr).toMatch(new RegExp(`^tenders: the proxy http://127\\.0\\.0\\.1:\\d+ answered 407 to POST ${SEARCH}: it wants a user name and password; put them in HTTP_PROXY as http://USER:PASSWORD@host:port\\n$`));
    expect(r).toMatchObject({ code: 1, proxy: [['POST', 407]], service: 0 });
  });

  it('a 407 for wrong credentials says to check them, never printing them', async () => {
    const r = await countThrough(() => ({ credentials: { user: 'alice', password: 'another' } }), (p) => ({ http_proxy: p.urlWith('alice', 's3cret') }));
    expect(r.stderr).toMatch(/^tenders: the proxy http:\/\/127\.0\.0\.1:\d+ answered 407 to POST \/api\/v1\/tenders\/search: it did not accept the user name and password in http_proxy; check them\n$/);
    expect(r.stderr).not.toMatch(/alice|s3cret/);
    expect(r).toMatchObject({ code: 1, proxy: [['POST', 407]] });
  });

  it('a 403 to a forwarded request names the service and the proxy, not retried', async () => {
    const r = await countThrough((service) => ({ deny: [service] }), (p) => ({ HTTP_PROXY: p.url }));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: the service answered 403 to POST \/api\/v1\/tenders\/search: .*Access denied by the proxy.* \(through the proxy http:\/\/127\.0\.0\.1:\d+, unless NO_PROXY excludes it: the refusal may be the proxy's\)\n$/);
    expect(r.proxy).toEqual([['POST', 403]]);
  });

  it('a CONNECT refused with 403 says the proxy does not allow the destination; with 407, to check the credentials', async () => {
    const refused = await countThrough(() => ({}), (p) => ({ HTTPS_PROXY: p.url }), true);
    expect(refused.stderr).toMatch(/^tenders: the proxy http:\/\/127\.0\.0\.1:\d+ answered 403 to CONNECT 127\.0\.0\.1:\d+ \(the tunnel for https:\/\/127\.0\.0\.1:\d+\): it does not allow this destination \(many proxies tunnel only to port 443\); ask its administrator, or add the host to NO_PROXY if it is reachable directly\n$/);
    expect(refused).toMatchObject({ code: 1, proxy: [['CONNECT', 403]] });
    const wrong = await countThrough(() => ({ credentials: { user: 'alice', password: 'another' } }), (p) => ({ HTTPS_PROXY: p.urlWith('alice', 's3cret') }), true);
    expect(wrong.stderr).toMatch(/^tenders: the proxy http:\/\/127\.0\.0\.1:\d+ answered 407 to CONNECT .*: it did not accept the user name and password in HTTPS_PROXY; check them\n$/);
    expect(wrong).toMatchObject({ code: 1, proxy: [['CONNECT', 407]] });
  });
});
