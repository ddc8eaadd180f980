import { createWriteStream, openSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { decideFault, hugeBody, malformedBody, type Faults } from './faults.js';
import { mutate, parseMutation, type Mutation, type MutationResult } from './mutate.js';
import { BadRequest, errorResponse, type ApiResponse } from '../contract/response.js';
import { Routes, type RenderOptions } from './routes.js';
import { Store } from './store.js';

export type { Faults } from './faults.js';
export type { Mutation, MutationResult } from './mutate.js';

/** The sandbox's own route (not the service's): changes the data, as `Sandbox.mutate`. */
export const MUTATE_PATH = '/__sandbox/mutate';

export interface SandboxOptions {
  port?: number;
  host?: string;
  size?: number;
  seed?: number;
  /** UTC midnight (ms) of the day the data is as of: publications up to it, open tenders' deadlines after it (default: a fixed day, NEWEST). */
  today?: number;
  faults?: Faults;
  logFile?: string;
  /** Memoise whole response bodies (benchmarks): the server is never the bottleneck. */
  cache?: boolean;
}

export interface RequestLogEntry {
  /** The request's number for the "every N" faults: from 1 since start or setFaults. */
  n: number;
  /** When the request arrived: milliseconds since the epoch, with a fraction. */
  t: number;
  method: string;
  path: string;
  body: unknown;
  /** The status answered; 0 when the connection was dropped without one. */
  status: number;
  fault?: string;
  /** The client hung up before the answer was complete (during latency, a stall, a trickled or a huge body). */
  clientClosed?: true;
}

export interface Sandbox {
  url: string;
  /** Every service request since start or clearRequests(), in order of arrival (MUTATE_PATH requests are not in it). */
  readonly requests: RequestLogEntry[];
  /** Empties `requests` in place (the same array). Request numbers `n` go on; setFaults restarts them. */
  clearRequests(): void;
  /** Replaces the faults; "every N" counts start again from 1. */
  setFaults(faults: Faults): void;
  /** Every result of a search in walk order, ignoring limit and cursor, as plain JSON (no fault fields). */
  truth(path: string, body: object): unknown[];
  /** Publishes `count` tenders on the newest publication day present. */
  insert(count: number): void;
  /** Changes the data between two runs of a client; also `POST /__sandbox/mutate`. */
  mutate(mutation: Mutation): MutationResult;
  /** Resolves when no request is being answered (a trickle or a stall has ended). */
  idle(): Promise<void>;
  /**
   * Resolves with the first logged request, already there or still to come,
   * that `match` accepts (every request by default): a test waits on the
   * request's arrival instead of polling the log.
   */
  arrived(match?: (entry: RequestLogEntry) => boolean): Promise<RequestLogEntry>;
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

/** The 40 MiB body, chunk by chunk as the client takes it; false when the client hung up first. */
async function sendHuge(res: ServerResponse): Promise<boolean> {
  res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': HUGE_BYTES });
  // A client that refuses the body hangs up half way: nothing to report.
  return pipeline(Readable.from(hugeBody(HUGE_BYTES)), res).then(
    () => true,
    () => false,
  );
}

/**
 * The headers at once, then the body `bytes` at a time, one chunk every `ms`;
 * false when the client hung up (or the sandbox closed) before the end.
 */
async function sendTrickle(res: ServerResponse, r: ApiResponse, contentType: string, ms: number, bytes: number, signal: AbortSignal): Promise<boolean> {
  const body = Buffer.from(r.body);
  res.writeHead(r.status, { 'content-type': contentType, 'content-length': body.length, ...r.headers });
  res.flushHeaders();
  for (let at = 0; at < body.length; at += bytes) {
    if (at > 0) {
      try {
        await sleep(ms, undefined, { signal });
      } catch {
        return false;
      }
    }
    if (res.destroyed) return false;
    res.write(body.subarray(at, at + bytes));
  }
  res.end();
  return true;
}

/** Starts the local tender search service on loopback. */
export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const store = new Store(opts.size ?? 5000, opts.seed ?? 1, opts.today);
  const routes = new Routes(store, `tenders-sandbox-${opts.seed ?? 1}`);
  const requests: RequestLogEntry[] = [];
  // Opened here so that an unwritable path fails the start, not a later write.
  const log = opts.logFile ? createWriteStream(opts.logFile, { fd: openSync(opts.logFile, 'a') }) : undefined;
  const cache = new Map<string, string>();
  let cacheVersion = store.version;
  let faults: Faults = opts.faults ?? {};
  let counter = 0;
  /** Cursors answered with themselves as nextCursor (cursorCycleAt), until setFaults. */
  let cycling = new Set<string>();
  // Aborts latency, stalls and trickles still going when the sandbox closes.
  const closing = new AbortController();
  let inFlight = 0;
  let idleWaiters: (() => void)[] = [];
  const arrivalWaiters: { match: (entry: RequestLogEntry) => boolean; resolve: (entry: RequestLogEntry) => void }[] = [];

  // In memory on arrival (tests see a request at once), in the file once answered.
  const record = (entry: RequestLogEntry) => {
    if (log?.writable) log.write(`${JSON.stringify(entry)}\n`);
  };

  /** The faults that change a page rather than replace it, for request `entry`. */
  const renderOptions = (entry: RequestLogEntry, body: unknown): RenderOptions => {
    const render: RenderOptions = {
      resultsKey: faults.resultsKey,
      repeatOverlap: faults.repeatOverlap,
      exoticFields: faults.exoticFields,
      drift: faults.driftAfter !== undefined && entry.n > faults.driftAfter,
      missort: faults.missort,
    };
    const cursor = (body as { cursor?: unknown } | null)?.cursor;
    if (faults.cursorCycleAt !== undefined && typeof cursor === 'string') {
      if (cycling.has(cursor) || (cycling.size === 0 && entry.n >= faults.cursorCycleAt)) render.nextCursor = cursor;
    }
    return render;
  };

  const answer = (path: string, raw: string, body: unknown, render: RenderOptions): ApiResponse => {
    const plain = Object.values(render).every((v) => v === undefined || v === false);
    if (!opts.cache || !plain) return routes.handle(path, body, render);
    if (cacheVersion !== store.version) {
      cache.clear();
      cacheVersion = store.version;
    }
    const key = `${path}\n${raw}`;
    const hit = cache.get(key);
    if (hit !== undefined) return { status: 200, body: hit };
    const r = routes.handle(path, body, render);
    if (r.status === 200) cache.set(key, r.body);
    return r;
  };

  /** The sandbox's own route: not logged, not delayed, not counted for faults. */
  const admin = (req: IncomingMessage, raw: string | undefined, body: unknown): ApiResponse => {
    if (req.method !== 'POST') return errorResponse(405, 'use POST', { allow: 'POST' });
    if (raw === undefined) return errorResponse(413, 'request body too large');
    if (body === undefined) return errorResponse(400, 'the request body must be JSON');
    try {
      return { status: 200, body: JSON.stringify(mutate(store, parseMutation(body))) };
    } catch (err) {
      if (err instanceof BadRequest) return errorResponse(400, err.message);
      throw err;
    }
  };

  /**
   * Answers one request; `body` is the parsed `raw` body, undefined when it is
   * not JSON. `signal` aborts when the client hangs up or the sandbox closes.
   */
  const serve = async (req: IncomingMessage, res: ServerResponse, entry: RequestLogEntry, raw: string | undefined, body: unknown, signal: AbortSignal) => {
    const wait = (ms: number) => sleep(ms, undefined, { signal });
    const done = async (r: ApiResponse, contentType = JSON_TYPE) => {
      entry.status = r.status;
      if (res.destroyed) return record(entry);
      if (!faults.trickleMs) {
        record(entry);
        return send(res, r, contentType);
      }
      if (!(await sendTrickle(res, r, contentType, faults.trickleMs, faults.trickleBytes || 8, signal))) entry.clientClosed = true;
      record(entry);
    };

    if (faults.latencyMs) await wait(faults.latencyMs);
    if (!Routes.known(entry.path)) return done(errorResponse(404, `not found: ${entry.path}`));
    if (req.method !== 'POST') return done(errorResponse(405, 'use POST', { allow: 'POST' }));
    if (raw === undefined) return done(errorResponse(413, 'request body too large'));
    if (body === undefined) return done(errorResponse(400, 'the request body must be JSON'));

    const fault = decideFault(faults, entry.n);
    if (fault) entry.fault = fault.kind === 'malformed' ? `malformed:${fault.malformed}` : fault.kind;
    const render = renderOptions(entry, body);
    switch (fault?.kind) {
      case 'fail':
        return done(errorResponse(fault.status, 'service unavailable (injected failure)'));
      case 'drop':
        record(entry);
        req.socket.destroy();
        return;
      case 'cut': {
        const good = answer(entry.path, raw, body, render).body;
        entry.status = 200;
        record(entry);
        res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(good) });
        res.write(good.slice(0, good.length >> 1), () => res.destroy());
        return;
      }
      case 'rateLimit':
        return done(errorResponse(429, 'rate limited', fault.retryAfter === undefined ? undefined : { 'retry-after': fault.retryAfter }));
      case 'error':
        return done(errorResponse(fault.status, `injected ${fault.status}`));
      case 'stall':
        await wait(fault.ms);
        break;
      case 'malformed': {
        if (fault.malformed !== 'huge') {
          const bad = malformedBody(fault.malformed, answer(entry.path, raw, body, render).body);
          return done({ status: 200, body: bad.body }, bad.contentType);
        }
        entry.status = 200;
        if (!(await sendHuge(res))) entry.clientClosed = true;
        return record(entry);
      }
    }
    const r = answer(entry.path, raw, body, render);
    if (render.nextCursor !== undefined && r.status === 200) {
      cycling.add(render.nextCursor);
      entry.fault ??= 'cursorCycle';
    }
    if (faults.insertPerRequest) store.insert(faults.insertPerRequest);
    await done(r);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const t = performance.timeOrigin + performance.now();
    const path = (req.url ?? '/').split('?')[0]!;
    inFlight++;
    try {
      const raw = await readBody(req);
      const body = raw === undefined ? undefined : parse(raw);
      if (path === MUTATE_PATH) return send(res, admin(req, raw, body));
      const entry: RequestLogEntry = { n: ++counter, t, method: req.method ?? '', path, body: body ?? raw, status: 0 };
      requests.push(entry);
      // Told after this request's first synchronous step (its fault decided), not before.
      queueMicrotask(() => {
        for (const w of arrivalWaiters.splice(0)) {
          if (w.match(entry)) w.resolve(entry);
          else arrivalWaiters.push(w);
        }
      });
      const gone = new AbortController();
      res.once('close', () => gone.abort());
      try {
        await serve(req, res, entry, raw, body, AbortSignal.any([closing.signal, gone.signal]));
      } catch (err) {
        // Closing, or the client went away: nobody to answer.
        if (closing.signal.aborted) return;
        if (gone.signal.aborted || res.destroyed) {
          entry.clientClosed = true;
          return record(entry);
        }
        // A bug in the sandbox: answer it rather than take the process down under a test.
        entry.status = 500;
        record(entry);
        if (res.headersSent) res.destroy();
        else send(res, errorResponse(500, `sandbox error: ${(err as Error).message}`));
      }
    } catch (err) {
      if (closing.signal.aborted || res.destroyed) return;
      if (res.headersSent) res.destroy();
      else send(res, errorResponse(500, `sandbox error: ${(err as Error).message}`));
    } finally {
      if (--inFlight === 0) {
        for (const resolve of idleWaiters) resolve();
        idleWaiters = [];
      }
    }
  };
  // handle answers every failure itself; one in the answering ends that connection, not the sandbox.
  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
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
    clearRequests() {
      requests.length = 0;
    },
    setFaults(next) {
      faults = next;
      counter = 0;
      cycling = new Set();
    },
    truth: (path, body) => routes.truth(path, body),
    insert: (count) => store.insert(count),
    mutate: (mutation) => mutate(store, parseMutation(mutation)),
    idle: () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
    arrived: (match = () => true) =>
      new Promise<RequestLogEntry>((resolve) => {
        const logged = requests.find(match);
        if (logged) resolve(logged);
        else arrivalWaiters.push({ match, resolve });
      }),
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
