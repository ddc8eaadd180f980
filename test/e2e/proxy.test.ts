import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { ndjson, runCli } from '../support/cli.js';
import { startProxy, startTlsFront, type ForwardProxy } from '../support/proxy.js';

const PATH = '/api/v1/tenders/search';
// 4 pages of 100.
const EXPORT = ['export', '-f', 'ndjson', '--country', 'DEU,FRA,ITA,ESP,POL'];
const BODY = { limit: 100, buyerCountries: ['DEU', 'FRA', 'ITA', 'ESP', 'POL'] };
const USER = 'alice';
const PASSWORD = 'pa55:w@rd/S3CRET';

let sb: Sandbox;
let truth: unknown[];
let pages: number;

/** Where a program is installed, or undefined. */
function which(name: string): string | undefined {
  try {
    return execFileSync('/bin/sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}
const OPENSSL = which('openssl');

/** Every spelling of the password that must never reach stderr. */
function expectNoPassword(stderr: string) {
  for (const secret of [PASSWORD, encodeURIComponent(PASSWORD), 'S3CRET', Buffer.from(`${USER}:${PASSWORD}`).toString('base64')]) {
    expect(stderr).not.toContain(secret);
  }
}

/** Runs `body` with a started proxy, and closes it. */
async function withProxy<T>(started: Promise<ForwardProxy>, body: (proxy: ForwardProxy) => Promise<T>): Promise<T> {
  const proxy = await started;
  try {
    return await body(proxy);
  } finally {
    await proxy.close();
  }
}

beforeAll(async () => {
  sb = await startSandbox({ size: 1200, seed: 11 });
  truth = sb.truth(PATH, BODY);
  pages = Math.ceil(truth.length / 100);
  expect(pages).toBeGreaterThan(1);
});
afterAll(() => sb.close());
beforeEach(() => sb.setFaults({}));

describe('an http:// service through an http:// proxy', () => {
  it('is reached by forwarded requests in absolute form, never CONNECT', () =>
    withProxy(startProxy(), async (proxy) => {
      const before = sb.requests.length;
      const r = await runCli(EXPORT, sb.url, { env: { HTTP_PROXY: proxy.url } });
      expect(r.code).toBe(0);
      expect(ndjson(r.stdout)).toEqual(truth);
      expect(r.stderr).toBe('');
      expect(proxy.requests.map((q) => [q.method, q.target, q.status])).toEqual(
        Array.from({ length: pages }, () => ['POST', `${sb.url}${PATH}`, 200]),
      );
      expect(proxy.tunnels).toEqual([]);
      expect(sb.requests.length - before).toBe(pages);
    }));

  it('lower-case http_proxy works alike; NO_PROXY goes around the proxy', () =>
    withProxy(startProxy(), async (proxy) => {
      const lower = await runCli(EXPORT, sb.url, { env: { http_proxy: proxy.url } });
      expect(lower.code).toBe(0);
      expect(proxy.requests.length).toBe(pages);

      for (const noProxy of ['127.0.0.1', `127.0.0.1:${new URL(sb.url).port}`]) {
        const around = await runCli(EXPORT, sb.url, { env: { HTTP_PROXY: proxy.url, NO_PROXY: noProxy } });
        expect(around.code).toBe(0);
        expect(ndjson(around.stdout)).toEqual(truth);
      }
      expect(proxy.requests.length).toBe(pages);
    }));

  it('sends the credentials in HTTP_PROXY as Proxy-Authorization, and never prints them, not even with --verbose', () =>
    withProxy(startProxy({ credentials: { user: USER, password: PASSWORD } }), async (proxy) => {
      const r = await runCli([...EXPORT, '--verbose'], sb.url, { env: { HTTP_PROXY: proxy.urlWith(USER, PASSWORD) } });
      expect(r.code).toBe(0);
      expect(ndjson(r.stdout)).toEqual(truth);
      expect(proxy.requests.length).toBe(pages);
      const basic = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
      expect(proxy.requests.every((q) => q.authorization === basic && q.status === 200)).toBe(true);
      expect(r.stderr).toMatch(/POST \/api\/v1\/tenders\/search 200/);
      expectNoPassword(r.stderr);
    }));

  it('--timeout and the response size bound hold through the proxy', () =>
    withProxy(startProxy(), async (proxy) => {
      sb.setFaults({ malformedEvery: 1, malformed: 'huge' });
      const huge = await runCli(EXPORT, sb.url, { env: { HTTP_PROXY: proxy.url } });
      expect(huge.code).toBe(1);
      expect(huge.stderr).toMatch(/^tenders: bad response from the service \(200 to POST .*the body is larger than 16\.0 MiB\n$/);

      sb.setFaults({ stallEvery: 1, stallMs: 5000 });
      const stalled = await runCli(['count', '--timeout', '500', '--retries', '0'], sb.url, { env: { HTTP_PROXY: proxy.url } });
      expect(stalled.code).toBe(1);
      expect(stalled.stderr).toMatch(/: no response within 500 ms \(see --timeout\)\n$/);
    }));
});

describe('an https:// service through the proxy', () => {
  it('an export through an allowed tunnel succeeds, with the credentials on CONNECT', async (ctx) => {
    if (!OPENSSL) ctx.skip('openssl is not installed: no certificate for a local https:// service');
    const front = await startTlsFront(sb.url, OPENSSL!);
    try {
      await withProxy(startProxy({ credentials: { user: USER, password: PASSWORD }, connectPorts: [front.port] }), async (proxy) => {
        const r = await runCli(EXPORT, front.url, {
          env: { HTTPS_PROXY: proxy.urlWith(USER, PASSWORD), NODE_EXTRA_CA_CERTS: front.caFile },
        });
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        expect(ndjson(r.stdout)).toEqual(truth);
        expect(proxy.tunnels.length).toBeGreaterThan(0);
        expect(proxy.tunnels.every((t) => t === `127.0.0.1:${front.port}`)).toBe(true);
        expect(proxy.requests.every((q) => q.method === 'CONNECT' && q.authorization?.startsWith('Basic '))).toBe(true);
      });
    } finally {
      await front.close();
    }
  });
});
