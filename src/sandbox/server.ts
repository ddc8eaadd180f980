import { createWriteStream, type WriteStream } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { decideFault, hugeBody, malformedBody, type Faults } from './faults.js';
import { Routes, type ApiResponse } from './routes.js';
import { Store } from './store.js';

export type { Faults } from './faults.js';

export interface SandboxOptions {
  port?: number;
  host?: string;
  size?: number;
  seed?: number;
  faults?: Faults;
  logFile?: string;
  /** Memoise whole response bodies (benchmarks): the server is never the bottleneck. */
  cache?: boolean;
}

export interface RequestLogEntry {
  n: number;
  method: string;
  path: string;
  body: unknown;
  status: number;
  fault?: string;
}

export interface Sandbox {
  url: string;
  requests: RequestLogEntry[];
  setFaults(faults: Faults): void;
  truth(path: string, body: object): unknown[];
  insert(count: number): void;
  close(): Promise<void>;
}

const MAX_REQUEST_BYTES = 1 << 20;
const HUGE_BYTES = 40 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, r: ApiResponse, contentType = 'application/json; charset=utf-8'): void {
  res.writeHead(r.status, { 'content-type': contentType, 'content-length': Buffer.byteLength(r.body), ...r.headers });
  res.end(r.body);
}

/** Starts the local tender search service on loopback. */
export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const store = new Store(opts.size ?? 5000, opts.seed ?? 1);
  const routes = new Routes(store, `tenders-sandbox-${opts.seed ?? 1}`);
  const requests: RequestLogEntry[] = [];
  const log: WriteStream | undefined = opts.logFile ? createWriteStream(opts.logFile, { flags: 'a' }) : undefined;
  const cache = new Map<string, string>();
  let cacheVersion = store.version;
  let faults: Faults = opts.faults ?? {};
  let counter = 0;

  // In memory on arrival (tests see a request at once), in the file once answered.
  const record = (entry: RequestLogEntry) => log?.write(`${JSON.stringify(entry)}\n`);

  const answer = (raw: string, path: string): ApiResponse => {
    if (!opts.cache || faults.repeatOverlap || faults.resultsKey) return routes.handle(path, parse(raw), faults);
    if (cacheVersion !== store.version) {
      cache.clear();
      cacheVersion = store.version;
    }
    const key = `${path}\n${raw}`;
    const hit = cache.get(key);
    if (hit !== undefined) return { status: 200, body: hit };
    const r = routes.handle(path, parse(raw), faults);
    if (r.status === 200) cache.set(key, r.body);
    return r;
  };

  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const raw = await readBody(req).catch(() => '');
    const n = ++counter;
    const entry: RequestLogEntry = { n, method: req.method ?? '', path, body: parse(raw) ?? raw, status: 0 };
    requests.push(entry);
    const done = (r: ApiResponse, contentType?: string) => {
      entry.status = r.status;
      record(entry);
      if (!res.destroyed) send(res, r, contentType);
    };

    if (faults.latencyMs) await sleep(faults.latencyMs);
    if (!Routes.known(path)) return done({ status: 404, body: JSON.stringify({ message: `not found: ${path}` }) });
    if (req.method !== 'POST') {
      return done({ status: 405, body: JSON.stringify({ message: 'use POST' }), headers: { allow: 'POST' } });
    }
    if (Buffer.byteLength(raw) > MAX_REQUEST_BYTES) return done({ status: 413, body: JSON.stringify({ message: 'request body too large' }) });
    if (parse(raw) === undefined) return done({ status: 400, body: JSON.stringify({ message: 'the request body must be JSON' }) });

    const fault = decideFault(faults, n);
    if (fault) entry.fault = fault.kind === 'malformed' ? `malformed:${fault.malformed}` : fault.kind;
    switch (fault?.kind) {
      case 'fail':
        return done({ status: fault.status, body: JSON.stringify({ message: 'service unavailable (injected failure)' }) });
      case 'drop':
        record(entry);
        req.socket.destroy();
        return;
      case 'cut': {
        const { body } = answer(raw, path);
        entry.status = 200;
        record(entry);
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
        res.write(body.slice(0, body.length >> 1), () => res.destroy());
        return;
      }
      case 'rateLimit':
        return done({ status: 429, body: JSON.stringify({ message: 'rate limited' }), headers: { 'retry-after': fault.retryAfter } });
      case 'error':
        return done({ status: fault.status, body: JSON.stringify({ message: `injected ${fault.status}` }) });
      case 'stall':
        await sleep(fault.ms);
        break;
      case 'malformed':
        if (fault.malformed === 'huge') {
          entry.status = 200;
          record(entry);
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': HUGE_BYTES });
          for (const chunk of hugeBody(HUGE_BYTES)) if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
          res.end();
          return;
        } else {
          const bad = malformedBody(fault.malformed, answer(raw, path).body);
          return done({ status: 200, body: bad.body }, bad.contentType);
        }
    }
    done(answer(raw, path));
    if (faults.insertPerRequest) store.insert(faults.insertPerRequest);
  });
  server.keepAliveTimeout = 10_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;

  return {
    url: `http://${host}:${port}`,
    requests,
    setFaults(next) {
      faults = next;
      counter = 0;
    },
    truth: (path, body) => routes.truth(path, body),
    insert: (count) => store.insert(count),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          log?.end();
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

function parse(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
