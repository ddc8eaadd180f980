import { createWriteStream, openSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { decideFault, hugeBody, malformedBody, type Faults } from './faults.js';
import { errorResponse, Routes, type ApiResponse } from './routes.js';
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
const JSON_TYPE = 'application/json; charset=utf-8';

/** The request body, or undefined when it exceeds MAX_REQUEST_BYTES (read to the end all the same). */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size <= MAX_REQUEST_BYTES ? Buffer.concat(chunks).toString('utf8') : undefined));
    req.on('error', reject);
  });
}

function parse(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, r: ApiResponse, contentType = JSON_TYPE): void {
  res.writeHead(r.status, { 'content-type': contentType, 'content-length': Buffer.byteLength(r.body), ...r.headers });
  res.end(r.body);
}

/** The 40 MiB body, chunk by chunk as the client takes it. */
async function sendHuge(res: ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': HUGE_BYTES });
  // A client that refuses the body hangs up half way: nothing to report.
  await pipeline(Readable.from(hugeBody(HUGE_BYTES)), res).catch(() => {});
}

/** Starts the local tender search service on loopback. */
export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const store = new Store(opts.size ?? 5000, opts.seed ?? 1);
  const routes = new Routes(store, `tenders-sandbox-${opts.seed ?? 1}`);
  const requests: RequestLogEntry[] = [];
  // Opened here so that an unwritable path fails the start, not a later write.
  const log = opts.logFile ? createWriteStream(opts.logFile, { fd: openSync(opts.logFile, 'a') }) : undefined;
  const cache = new Map<string, string>();
  let cacheVersion = store.version;
  let faults: Faults = opts.faults ?? {};
  let counter = 0;
  // Aborts latency and stalls still waiting when the sandbox closes.
  const closing = new AbortController();
  const wait = (ms: number) => sleep(ms, undefined, { signal: closing.signal });

  // In memory on arrival (tests see a request at once), in the file once answered.
  const record = (entry: RequestLogEntry) => {
    if (log?.writable) log.write(`${JSON.stringify(entry)}\n`);
  };

  const answer = (path: string, raw: string, body: unknown): ApiResponse => {
    if (!opts.cache || faults.repeatOverlap || faults.resultsKey) return routes.handle(path, body, faults);
    if (cacheVersion !== store.version) {
      cache.clear();
      cacheVersion = store.version;
    }
    const key = `${path}\n${raw}`;
    const hit = cache.get(key);
    if (hit !== undefined) return { status: 200, body: hit };
    const r = routes.handle(path, body, faults);
    if (r.status === 200) cache.set(key, r.body);
    return r;
  };

  /** Answers one request; `body` is the parsed `raw` body, undefined when it is not JSON. */
  const serve = async (req: IncomingMessage, res: ServerResponse, entry: RequestLogEntry, raw: string | undefined, body: unknown) => {
    const done = (r: ApiResponse, contentType?: string) => {
      entry.status = r.status;
      record(entry);
      if (!res.destroyed) send(res, r, contentType);
    };

    if (faults.latencyMs) await wait(faults.latencyMs);
    if (!Routes.known(entry.path)) return done(errorResponse(404, `not found: ${entry.path}`));
    if (req.method !== 'POST') return done(errorResponse(405, 'use POST', { allow: 'POST' }));
    if (raw === undefined) return done(errorResponse(413, 'request body too large'));
    if (body === undefined) return done(errorResponse(400, 'the request body must be JSON'));

    const fault = decideFault(faults, entry.n);
    if (fault) entry.fault = fault.kind === 'malformed' ? `malformed:${fault.malformed}` : fault.kind;
    switch (fault?.kind) {
      case 'fail':
        return done(errorResponse(fault.status, 'service unavailable (injected failure)'));
      case 'drop':
        record(entry);
        req.socket.destroy();
        return;
      case 'cut': {
        const good = answer(entry.path, raw, body).body;
        entry.status = 200;
        record(entry);
        res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(good) });
        res.write(good.slice(0, good.length >> 1), () => res.destroy());
        return;
      }
      case 'rateLimit':
        return done(errorResponse(429, 'rate limited', { 'retry-after': fault.retryAfter }));
      case 'error':
        return done(errorResponse(fault.status, `injected ${fault.status}`));
      case 'stall':
        await wait(fault.ms);
        break;
      case 'malformed': {
        if (fault.malformed !== 'huge') {
          const bad = malformedBody(fault.malformed, answer(entry.path, raw, body).body);
          return done({ status: 200, body: bad.body }, bad.contentType);
        }
        entry.status = 200;
        record(entry);
        return sendHuge(res);
      }
    }
    done(answer(entry.path, raw, body));
    if (faults.insertPerRequest) store.insert(faults.insertPerRequest);
  };

  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const entry: RequestLogEntry = { n: 0, method: req.method ?? '', path, body: undefined, status: 0 };
    try {
      const raw = await readBody(req);
      const body = raw === undefined ? undefined : parse(raw);
      entry.n = ++counter;
      entry.body = body ?? raw;
      requests.push(entry);
      await serve(req, res, entry, raw, body);
    } catch (err) {
      // Closing, or the client went away: nobody to answer.
      if (closing.signal.aborted || res.destroyed) return;
      // A bug in the sandbox: answer it rather than take the process down under a test.
      entry.status = 500;
      record(entry);
      if (res.headersSent) res.destroy();
      else send(res, errorResponse(500, `sandbox error: ${(err as Error).message}`));
    }
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
        closing.abort();
        server.close(() => {
          log?.end();
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
