import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, createServer as createNetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { promisify } from 'node:util';

/** One request as the proxy saw it. */
export interface ProxyRequest {
  /** `CONNECT`, or the method of a forwarded request. */
  method: string;
  /** The request target: `host:port` for CONNECT, the absolute URL (or whatever came) otherwise. */
  target: string;
  /** The Proxy-Authorization header as sent, if any. */
  authorization?: string;
  /** The status the proxy answered (200 for an opened tunnel). */
  status: number;
}

export interface ProxyOptions {
  /** Require these Basic credentials, answering 407 without them (as squid/tinyproxy with auth do). */
  credentials?: { user: string; password: string };
  /** Ports CONNECT may reach; others get 403, as squid's default configuration does (`http_access deny CONNECT !SSL_ports`). */
  connectPorts?: number[];
  /** host:port destinations whose forwarded requests get 403, as a squid `http_access deny` would. */
  deny?: string[];
}

export interface ForwardProxy {
  /** http://127.0.0.1:PORT, without credentials. */
  url: string;
  /** The proxy URL with user and password in it, as a user puts it in HTTP_PROXY. */
  urlWith(user: string, password: string): string;
  /** Everything it was asked, in order. */
  requests: ProxyRequest[];
  /** host:port of every CONNECT tunnel it opened. */
  tunnels: string[];
  close(): Promise<void>;
}

const HOP_BY_HOP = ['proxy-authorization', 'proxy-connection', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade'];

/**
 * A small HTTP forward proxy on loopback, behaving like squid in its default configuration:
 * absolute-form requests (`POST http://host:port/path`) are forwarded, `CONNECT`
 * is tunnelled only to the SSL ports (443, 563) and refused with 403 elsewhere,
 * and, given credentials, anything without them gets 407.
 */
export async function startProxy(options: ProxyOptions = {}): Promise<ForwardProxy> {
  const connectPorts = options.connectPorts ?? [443, 563];
  const expected = options.credentials
    ? `Basic ${Buffer.from(`${options.credentials.user}:${options.credentials.password}`).toString('base64')}`
    : undefined;
  const requests: ProxyRequest[] = [];
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();

  const record = (req: IncomingMessage, status: number) => {
    const authorization = req.headers['proxy-authorization'];
    requests.push({ method: req.method ?? '', target: req.url ?? '', status, ...(authorization ? { authorization } : {}) });
  };
  const authorized = (req: IncomingMessage) => expected === undefined || req.headers['proxy-authorization'] === expected;

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!authorized(req)) {
      record(req, 407);
      req.resume();
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test proxy"', 'content-type': 'text/plain' });
      res.end('proxy authentication required');
      return;
    }
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      if (target.protocol !== 'http:') throw new Error('not http');
    } catch {
      record(req, 400);
      req.resume();
      res.writeHead(400, { 'content-type': 'text/plain' }).end('this is a proxy: send absolute-form requests');
      return;
    }
    if (options.deny?.includes(target.host)) {
      record(req, 403);
      req.resume();
      res.writeHead(403, { 'content-type': 'text/html' }).end('<html><body>Access denied by the proxy</body></html>');
      return;
    }
    record(req, 0);
    const seen = requests[requests.length - 1]!;
    const headers = { ...req.headers };
    for (const name of HOP_BY_HOP) delete headers[name];
    const upstream = httpRequest(
      { host: target.hostname, port: target.port || 80, path: target.pathname + target.search, method: req.method, headers },
      (answer) => {
        seen.status = answer.statusCode ?? 0;
        const back = { ...answer.headers };
        for (const name of HOP_BY_HOP) delete back[name];
        res.writeHead(answer.statusCode ?? 502, back);
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', () => {
      if (seen.status === 0) seen.status = 502;
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('upstream unreachable');
      else res.destroy();
    });
    req.pipe(upstream);
  });

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    const target = req.url ?? '';
    const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
    const refuse = (status: number, reason: string, extra = '') => {
      record(req, status);
      client.end(`HTTP/1.1 ${status} ${reason}\r\n${extra}Content-Length: 0\r\n\r\n`);
    };
    if (!authorized(req)) return refuse(407, 'Proxy Authentication Required', 'Proxy-Authenticate: Basic realm="test proxy"\r\n');
    if (!connectPorts.includes(port)) return refuse(403, 'Forbidden');
    record(req, 200);
    tunnels.push(target);
    const upstream = connect(port, host.replace(/^\[|\]$/g, ''), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => {
      client.destroy();
      upstream.destroy();
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    urlWith: (user, password) => `http://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    requests,
    tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A port free on loopback right now (for programs that want a port in their config). */
export async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export interface Tinyproxy {
  url: string;
  /** What it logged so far (connections, requests, refusals). */
  log(): string;
  close(): Promise<void>;
}

/**
 * Debian's tinyproxy in the foreground on a free loopback port, with the SSL-only
 * CONNECT rule of tinyproxy's sample configuration (`ConnectPort 443`, `ConnectPort 563`;
 * Debian 12's packaged /etc/tinyproxy/tinyproxy.conf leaves them commented out). Resolves once it
 * says it is listening.
 */
export async function startTinyproxy(binary: string): Promise<Tinyproxy> {
  const dir = await mkdtemp(join(tmpdir(), 'tenders-tinyproxy-'));
  const port = await freePort();
  const config = join(dir, 'tinyproxy.conf');
  await writeFile(
    config,
    [
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 60',
      'MaxClients 20',
      'Allow 127.0.0.1',
      'ConnectPort 443',
      'ConnectPort 563',
      'LogLevel Info',
      ...(process.getuid?.() === 0 ? ['User nobody', 'Group nogroup'] : []),
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(binary, ['-d', '-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('Accepting connections')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`tinyproxy exited (${code}) before listening:\n${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    log: () => output,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface TlsFront {
  /** https://127.0.0.1:PORT, serving what the target serves. */
  url: string;
  port: number;
  /** A PEM file to trust it by (NODE_EXTRA_CA_CERTS). */
  caFile: string;
  close(): Promise<void>;
}

/**
 * An https:// front for a plain-HTTP server on loopback, with a certificate for
 * 127.0.0.1 made by `openssl` (give its path), so a child process trusts it
 * through NODE_EXTRA_CA_CERTS.
 */
export async function startTlsFront(target: string, openssl: string): Promise<TlsFront> {
  const dir = await mkdtemp(join(tmpdir(), 'tenders-tls-'));
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  await promisify(execFile)(openssl, [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
  ]);
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<Socket>();
  const server = createTlsServer({ key: await readFile(key), cert: await readFile(cert) }, (client) => {
    const upstream = connect(Number(targetPort), hostname);
    client.pipe(upstream).pipe(client);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    caFile: cert,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
