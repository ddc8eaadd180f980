import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CursorCodec } from '../contract/cursor.js';
import { orgIdOf, searchOperation } from '../contract/paths.js';
import { BadRequest, errorResponse, type ApiResponse } from '../contract/response.js';
import { UsageError } from '../errors.js';
import { handleWebRequest } from '../web/web-handler.js';
import type { WebResponse } from '../web/web-request.js';
import type { Store } from '../store/store.js';
import { accessLine } from './access-log.js';
import { bearerMatches } from './auth.js';
import { answerClientError } from './client-errors.js';
import { searchOrganisations } from './organisations.js';
import { RequestLimits, Unavailable, type LimitOptions } from './request-limits.js';
import { TenderSearch } from './tender-search.js';

/** Request bodies above this are refused (413): a search body is a few hundred bytes. */
export const MAX_BODY_BYTES = 64 * 1024;

export interface ServeOptions {
  store: Store;
  host: string;
  port: number;
  /** Signs cursors; a new one per process unless given. */
  secret: string;
  /** Every request but the health checks needs `Authorization: Bearer TOKEN`. */
  token?: string;
  /** One line per request (the access log); none when absent. */
  log?: (line: string) => void;
  /** A request that failed inside (never told to the client beyond 500). */
  fault: (err: unknown) => void;
  /** The request's headers must arrive within this, its whole body within requestTimeoutMs, else 408 (ms). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** How long close() lets requests in flight finish before it cuts them (ms). */
  drainMs?: number;
  /** A request's time limit for reading the copy, and how many read at once (request-limits.ts). */
  limits?: LimitOptions;
}

export interface RunningServer {
  url: string;
  /** Stops listening, lets requests in flight finish (at most drainMs), then resolves. */
  close(): Promise<void>;
}

/** On every answer: no sniffing, no referrer, revalidated by any cache. */
const SAFE_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'cache-control': 'no-cache' };
const JSON_TYPE = 'application/json; charset=utf-8';
const HEALTH = new Set(['/healthz', '/readyz']);

class TooLarge extends Error {}

/** The body as text; TooLarge past MAX_BODY_BYTES (declared or sent). */
function readBody(req: IncomingMessage): Promise<string> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return Promise.reject(new TooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new TooLarge());
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A page's answer, its body streamed when it is one; `logged` is told the bytes sent. */
async function writePage(res: ServerResponse, page: WebResponse, logged: (bytes: number) => void): Promise<void> {
  let bytes = 0;
  res.once('finish', () => logged(bytes));
  res.writeHead(page.status, page.headers);
  if (typeof page.body === 'string') {
    bytes = Buffer.byteLength(page.body);
    res.end(page.body);
  } else {
    for await (const chunk of page.body) {
      bytes += Buffer.byteLength(chunk);
      if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
    }
    res.end();
  }
}

/** `tenders serve`'s HTTP server: the service's search operations and health checks over the copy. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const limits = new RequestLimits(options.limits);
  const store = limits.bound(options.store);
  const codec = new CursorCodec(options.secret);
  const tenders = new TenderSearch(store, codec);

  const route = async (req: IncomingMessage, path: string): Promise<ApiResponse> => {
    if (path === '/healthz') return req.method === 'GET' ? { status: 200, body: '{"status":"ok"}' } : errorResponse(405, 'use GET', { allow: 'GET' });
    if (path === '/readyz') return req.method === 'GET' ? ready(store) : errorResponse(405, 'use GET', { allow: 'GET' });
    const operation = searchOperation(path);
    if (operation === undefined) return errorResponse(404, `not found: ${path}`);
    if (req.method !== 'POST') return errorResponse(405, 'use POST', { allow: 'POST' });
    if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) return errorResponse(415, 'the request body must be application/json');
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (err) {
      if (err instanceof TooLarge) return errorResponse(413, `request body too large (at most ${MAX_BODY_BYTES} bytes)`, { connection: 'close' });
      return errorResponse(400, 'the request body must be JSON');
    }
    if (operation === 'organisations') return searchOrganisations(store, codec, body);
    return tenders.answer(body, orgIdOf(path));
  };

  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  // Node looks for late requests every 30 s by default: then a 10 s limit would hold a slow client up to 40 s.
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = performance.now();
    const path = (req.url ?? '/').split('?')[0]!;
    let r: ApiResponse;
    try {
      if (options.token !== undefined && !HEALTH.has(path) && !bearerMatches(req.headers.authorization, options.token)) {
        r = errorResponse(401, 'a bearer token is required', { 'www-authenticate': 'Bearer' });
      } else {
        // The page (docs/web.md) answers its own paths; everything else is the API's.
        const url = new URL(req.url ?? '/', 'http://localhost');
        const page = await handleWebRequest({ method: req.method ?? 'GET', path, query: url.searchParams, host: req.headers.host }, { store, now: () => new Date() });
        if (page !== undefined) return await writePage(res, page, (bytes) => options.log?.(accessLine(req.method ?? '', path, page.status, bytes, performance.now() - started)));
        r = await route(req, path);
      }
    } catch (err) {
      // The request's own mistakes (a full-text query FTS refuses) are 400s; anything else is ours, said on stderr only.
      if (err instanceof BadRequest || err instanceof UsageError) r = errorResponse(400, err.message);
      else if (err instanceof Unavailable) r = errorResponse(503, err.message, { 'retry-after': String(err.retryAfter) });
      else {
        options.fault(err);
        r = errorResponse(500, 'internal error');
      }
    }
    const bytes = Buffer.byteLength(r.body);
    res.once('finish', () => options.log?.(accessLine(req.method ?? '', path, r.status, bytes, performance.now() - started)));
    res.writeHead(r.status, { ...SAFE_HEADERS, 'content-type': JSON_TYPE, 'content-length': bytes, ...r.headers });
    res.end(r.body);
  };
  const server: Server = createServer({ connectionsCheckingInterval: Math.min(1000, headersTimeout) }, (req, res) => {
    // handle answers every error of its own; what is left (a socket gone while writing) is a fault, never a crash.
    limits.request(new Promise((ended) => res.once('close', ended)), () => handle(req, res)).catch((err: unknown) => options.fault(err));
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => answerClientError(err, socket, SAFE_HEADERS));
  server.headersTimeout = headersTimeout;
  server.requestTimeout = options.requestTimeoutMs ?? 30_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        const cut = setTimeout(() => server.closeAllConnections(), options.drainMs ?? 10_000);
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

/** Ready when the copy answers: its syncs and how old each is. */
async function ready(store: Store): Promise<ApiResponse> {
  try {
    const syncs = await store.listSyncs();
    const now = Date.now();
    const ages = syncs.map((s) => ({ name: s.name, lastComplete: s.lastComplete, ageSeconds: Math.round((now - Date.parse(s.lastComplete)) / 1000) }));
    return { status: 200, body: JSON.stringify({ status: 'ready', syncs: ages }) };
  } catch {
    return errorResponse(503, 'the local copy cannot be read', { 'retry-after': '5' });
  }
}
