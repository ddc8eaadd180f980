import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { useSandbox } from '../support/sandbox.js';
import { ndjson, runCli } from '../support/cli.js';
import { requireTool } from '../support/tools.js';
import { startProxy, startTinyproxy, startTlsFront, type ForwardProxy } from '../support/proxy.js';

const PATH = '/api/v1/tenders/search';
// 4 pages of 100.
const EXPORT = ['export', '-f', 'ndjson', '--country', 'DEU,FRA,ITA,ESP,POL'];
const BODY = { limit: 100, buyerCountries: ['DEU', 'FRA', 'ITA', 'ESP', 'POL'] };
const USER = 'alice';
const PASSWORD = 'pa55:w@rd/S3CRET';

const sb = useSandbox({ size: 1200, seed: 11 });
let truth: unknown[];
let pages: number;

const hasTinyproxy = requireTool('tinyproxy', 'apt-get install tinyproxy');
const hasOpenssl = requireTool('openssl', 'apt-get install openssl');

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

beforeAll(() => {
  truth = sb.truth(PATH, BODY);
  pages = Math.ceil(truth.length / 100);
  expect(pages).toBeGreaterThan(1);
});

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

  it('an error line names the proxy without its credentials', async () => {
    const dead = `http://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:9`;
    for (const args of [['count', '--retries', '0'], ['count', '--retries', '0', '--verbose']]) {
      const r = await runCli(args, sb.url, { env: { HTTP_PROXY: dead } });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^tenders: cannot get POST \/api\/v1\/tenders\/search from http:\/\/127\.0\.0\.1:\d+ \(through the proxy http:\/\/127\.0\.0\.1:9, unless NO_PROXY excludes it\): connection refused/m);
      expectNoPassword(r.stderr);
    }
  });

  it('a 407 without credentials is one line, exit 1, and not retried', () =>
    withProxy(startProxy({ credentials: { user: USER, password: PASSWORD } }), async (proxy) => {
      const r = await runCli(EXPORT, sb.url, { env: { HTTP_PROXY: proxy.url } });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /^tenders: the proxy http:\/\/127\.0\.0\.1:\d+ answered 407 to POST \/api\/v1\/tenders\/search: it wants a user name and password; put them in HTTP_PROXY as http:\/\/USER:PASSWORD@host:port\n$/,
      );
      expect(proxy.requests.map((q) => q.status)).toEqual([407]);
    }));

  it('a 407 for wrong credentials says so, once, without printing them', () =>
    withProxy(startProxy({ credentials: { user: USER, password: 'another' } }), async (proxy) => {
      for (const verbose of [[], ['--verbose']]) {
        const r = await runCli([...EXPORT, ...verbose], sb.url, { env: { http_proxy: proxy.urlWith(USER, PASSWORD) } });
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(
          /^tenders: the proxy http:\/\/127\.0\.0\.1:\d+ answered 407 to POST \/api\/v1\/tenders\/search: it did not accept the user name and password in http_proxy; check them\n/m,
        );
        if (verbose.length === 0) expect(r.stderr.split('\n')).toHaveLength(2);
        expectNoPassword(r.stderr);
      }
      expect(proxy.requests.map((q) => q.status)).toEqual([407, 407]);
    }));

  it('a 403 from the proxy is one line naming the proxy, exit 1, not retried', () =>
    withProxy(startProxy({ deny: [new URL(sb.url).host] }), async (proxy) => {
      const before = sb.requests.length;
      const r = await runCli(EXPORT, sb.url, { env: { HTTP_PROXY: proxy.url } });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /^tenders: the service answered 403 to POST \/api\/v1\/tenders\/search: <html><body>Access denied by the proxy<\/body><\/html> \(through the proxy http:\/\/127\.0\.0\.1:\d+, unless NO_PROXY excludes it: the refusal may be the proxy's\)\n$/,
      );
      expect(proxy.requests.map((q) => q.status)).toEqual([403]);
      expect(sb.requests.length).toBe(before);
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
      expect(stalled.stderr).toMatch(/: no complete response within 500 ms \(whole-attempt --timeout\): nothing had arrived\n$/);
    }));
});

describe('an https:// service through the proxy', () => {
  it('still tunnels with CONNECT; a proxy refusing the port is one line, exit 1, not retried', () =>
    withProxy(startProxy(), async (proxy) => {
      const https = sb.url.replace('http:', 'https:');
      const r = await runCli(EXPORT, https, { env: { HTTPS_PROXY: proxy.url } });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /^tenders: the proxy http:\/\/127\.0\.0\.1:\d+ answered 403 to CONNECT 127\.0\.0\.1:\d+ \(the tunnel for https:\/\/127\.0\.0\.1:\d+\): it does not allow this destination .*NO_PROXY.*\n$/,
      );
      expect(proxy.requests.map((q) => [q.method, q.target, q.status])).toEqual([['CONNECT', new URL(https).host, 403]]);
    }));

  it('a 407 to CONNECT is one line naming the variable, exit 1, not retried, credentials never printed', () =>
    withProxy(startProxy({ credentials: { user: USER, password: 'another' } }), async (proxy) => {
      const https = sb.url.replace('http:', 'https:');
      const r = await runCli([...EXPORT, '--verbose'], https, { env: { HTTPS_PROXY: proxy.urlWith(USER, PASSWORD) } });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^tenders: the proxy http:\/\/127\.0\.0\.1:\d+ answered 407 to CONNECT .*: it did not accept the user name and password in HTTPS_PROXY; check them$/m);
      expectNoPassword(r.stderr);
      expect(proxy.requests.map((q) => [q.method, q.status])).toEqual([['CONNECT', 407]]);
    }));

  // openssl makes the certificate of a local https:// service.
  it.skipIf(!hasOpenssl)('an export through an allowed tunnel succeeds, with the credentials on CONNECT', async () => {
    const front = await startTlsFront(sb.url, 'openssl');
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

describe("Debian's tinyproxy", () => {
  it.skipIf(!hasTinyproxy)('forwards an http:// export; refuses CONNECT to a non-SSL port with 403, reported in one line', async () => {
    const proxy = await startTinyproxy('tinyproxy');
    try {
      const before = sb.requests.length;
      const r = await runCli(EXPORT, sb.url, { env: { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url } });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(ndjson(r.stdout)).toEqual(truth);
      expect(sb.requests.length - before).toBe(pages);
      // tinyproxy's log names every request it forwarded.
      expect(proxy.log().match(/Request \(file descriptor \d+\): POST http:\/\/127\.0\.0\.1:\d+\/api\/v1\/tenders\/search/g)).toHaveLength(pages);

      const https = await runCli(EXPORT, sb.url.replace('http:', 'https:'), { env: { HTTPS_PROXY: proxy.url } });
      expect(https.code).toBe(1);
      expect(https.stderr).toMatch(/^tenders: the proxy http:\/\/127\.0\.0\.1:\d+ answered 403 to CONNECT 127\.0\.0\.1:\d+ .*\n$/);
    } finally {
      await proxy.close();
    }
  });
});

describe('a socks5:// proxy', () => {
  it('makes no ExperimentalWarning on stderr: the one line is the tool\'s', async () => {
    // A SOCKS server that hangs up at once: the request fails, after undici made its SOCKS5 agent.
    const server = createNetServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const r = await runCli(['count', '--retries', '0'], 'http://127.0.0.1:9', { env: { HTTP_PROXY: `socks5://127.0.0.1:${port}` } });
      expect(r.code).toBe(1);
      expect(r.stderr).not.toContain('ExperimentalWarning');
      expect(r.stderr).toMatch(/^tenders: [^\n]+\n$/);
    } finally {
      server.close();
    }
  });
});
