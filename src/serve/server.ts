import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { orgIdOf, searchOperation, tenderIdOf } from '../contract/paths.js';
import { BadRequest, errorResponse, type ApiResponse } from '../contract/response.js';
import { UsageError } from '../errors.js';
import { SIGN_IN_PATH } from '../web/pages/sign-in-page.js';
import { handleWebRequest, isPagePath, isStaticPath } from '../web/web-handler.js';
import type { WebResponse } from '../web/web-request.js';
import type { Store } from '../store/store.js';
import { accessFormat, type LogFormat } from './access-log.js';
import { AnswerMemo, coalescedReads, DEFAULT_CACHE_MB, DEFAULT_CACHE_TTL_MS, type MemoOptions } from './answer-memo.js';
import { bearerMatches } from './auth.js';
import { AnswerPool } from './answer-pool.js';
import { StoreAnswers } from './answers.js';
import { CHANGES_PATH } from './changes-search.js';
import { corsHeaders, preflightHeaders } from './cors.js';
import { answerDownload, type DownloadResponse } from './downloads.js';
import { requestOrigin } from './origin.js';
import { sessionAdmits, signIn } from './page-session.js';
import { KEY_PARAM, keyAdmits } from './subscription-keys.js';
import { answerClientError } from './client-errors.js';
import { RequestLimits, Unavailable, type LimitOptions } from './request-limits.js';

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
  /** The access log's lines: text (default) or one JSON object each. */
  logFormat?: LogFormat;
  /** Serve only these syncs' tenders, organisations, changes (`--sync`); all when absent. */
  syncs?: string[];
  /** Origins a browser may call the API from (`--cors`; `*` any): none when absent. */
  cors?: string[];
  /** A request that failed inside (never told to the client beyond 500). */
  fault: (err: unknown) => void;
  /** The request's headers must arrive within this, its whole body within requestTimeoutMs, else 408 (ms). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** How long close() lets requests in flight finish before it cuts them (ms). */
  drainMs?: number;
  /** The copy opened again for one download (downloads.ts DownloadDeps.openReader). */
  openReader?: () => Promise<Store>;
  /** A request's time limit for reading the copy, and how many read at once (request-limits.ts). */
  limits?: LimitOptions;
  /** Answers kept until the copy changes (answer-memo.ts); 64 MiB for 60 s when absent. */
  memo?: MemoOptions;
  /** A SQLite copy's answers made on `size` threads started from `file` (answer-pool.ts); else in this thread from `store`. */
  threads?: { file: string; path: string; size: number };
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

/** Until the client took what was written, or went away (no listener left behind: a download waits thousands of times). */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * A page's or a download's answer, its body streamed when it is one, as fast as the client
 * takes it; `logged` is told the bytes sent. A client gone ends the stream (its reads released);
 * a failure once the answer started cuts the connection, so the client sees it incomplete.
 */
async function writePage(res: ServerResponse, page: WebResponse | DownloadResponse, logged: (bytes: number) => void): Promise<void> {
  let bytes = 0;
  res.once('finish', () => logged(bytes));
  res.writeHead(page.status, page.headers);
  if (typeof page.body === 'string') {
    bytes = Buffer.byteLength(page.body);
    res.end(page.body);
    return;
  }
  try {
    for await (const chunk of page.body) {
      if (res.destroyed) break;
      if (chunk.length === 0) continue;
      bytes += Buffer.byteLength(chunk);
      if (!res.write(chunk)) await drainedOrClosed(res);
    }
    res.end();
  } catch (err) {
    res.destroy();
    throw err;
  }
}

/** `tenders serve`'s HTTP server: the service's search operations and health checks over the copy. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const limits = new RequestLimits(options.limits);
  const store = limits.bound(options.store);
  const context = { secret: options.secret, token: options.token, syncs: options.syncs };
  const threads = options.threads;
  const answers = threads ? new AnswerPool(threads.file, { path: threads.path, context }, threads.size, limits) : new StoreAnswers(store, context);
  const accessLine = accessFormat(options.logFormat);
  const generation = coalescedReads(() => store.generation());
  const memo = new AnswerMemo(options.memo ?? { maxBytes: DEFAULT_CACHE_MB * 1024 * 1024, ttlMs: DEFAULT_CACHE_TTL_MS });
  /** The answer kept for `key` while the copy stays as it is, else made (and kept when it is a 200). */
  const kept = async <T extends ApiResponse | WebResponse>(key: string, make: () => Promise<T>): Promise<T> =>
    memo.enabled ? memo.answer(await generation(), key, make) : make();

  const route = async (req: IncomingMessage, path: string): Promise<ApiResponse> => {
    if (path === '/healthz') return req.method === 'GET' ? { status: 200, body: '{"status":"ok"}' } : errorResponse(405, 'use GET', { allow: 'GET' });
    if (path === '/readyz') return req.method === 'GET' ? answers.ready() : errorResponse(405, 'use GET', { allow: 'GET' });
    if (path === '/api/v1/syncs') {
      const origin = requestOrigin(req.headers.host, req.headers['x-forwarded-proto']);
      return req.method === 'GET' ? answers.syncs(origin) : errorResponse(405, 'use GET', { allow: 'GET' });
    }
    const operation = searchOperation(path) ?? (path === CHANGES_PATH ? 'changes' : undefined);
    const tenderId = operation === undefined ? tenderIdOf(path) : undefined;
    if (tenderId !== undefined) return req.method === 'GET' ? kept(`GET ${path}`, () => answers.story(tenderId)) : errorResponse(405, 'use GET', { allow: 'GET' });
    if (operation === undefined) return errorResponse(404, `not found: ${path}`);
    if (req.method !== 'POST') return errorResponse(405, 'use POST', { allow: 'POST' });
    if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) return errorResponse(415, 'the request body must be application/json');
    let text: string;
    let body: unknown;
    try {
      text = await readBody(req);
      body = JSON.parse(text);
    } catch (err) {
      if (err instanceof TooLarge) return errorResponse(413, `request body too large (at most ${MAX_BODY_BYTES} bytes)`, { connection: 'close' });
      return errorResponse(400, 'the request body must be JSON');
    }
    return kept(`POST ${path}\n${text}`, () => {
      if (operation === 'organisations') return answers.organisations(body);
      if (operation === 'changes') return answers.changes(body);
      return answers.tenders(body, orgIdOf(path));
    });
  };

  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  // Node looks for late requests every 30 s by default: then a 10 s limit would hold a slow client up to 40 s.
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = performance.now();
    const path = (req.url ?? '/').split('?')[0]!;
    const log = (status: number) => (bytes: number) => options.log?.(accessLine(req.method ?? '', path, status, bytes, performance.now() - started));
    let r: ApiResponse;
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      // A subscription's key (?key=, for clients that cannot send a header) opens its own path only.
      // A browser signed in to the page (page-session.ts) opens the page and a sync's files.
      const admitted = (token: string) =>
        bearerMatches(req.headers.authorization, token) || keyAdmits(token, req.method, path, url.searchParams.get(KEY_PARAM)) || sessionAdmits(token, req.method, path, req.headers.cookie);
      if (req.method === 'OPTIONS' && options.cors !== undefined) r = { status: 204, body: '', headers: preflightHeaders(options.cors, req.headers.origin) };
      else if (options.token !== undefined && !HEALTH.has(path) && !isStaticPath(path) && (path === SIGN_IN_PATH || !admitted(options.token))) {
        const https = requestOrigin(req.headers.host, req.headers['x-forwarded-proto'])?.startsWith('https:') ?? false;
        const page = await signIn({ method: req.method ?? 'GET', path, target: req.url ?? '/', https, form: () => readBody(req) }, options.token);
        if (page !== undefined) return await writePage(res, page, log(page.status));
        r = errorResponse(401, 'a bearer token is required', { 'www-authenticate': 'Bearer' });
      } else {
        const download = await answerDownload(
          { method: req.method ?? 'GET', path, query: url.searchParams, ifNoneMatch: req.headers['if-none-match'], ifModifiedSince: req.headers['if-modified-since'], origin: requestOrigin(req.headers.host, req.headers['x-forwarded-proto']) },
          { store, openReader: options.openReader, syncs: options.syncs, now: () => new Date() },
        );
        if (download !== undefined) return await writePage(res, { ...download, headers: { ...SAFE_HEADERS, ...download.headers } }, log(download.status));
        // The page (docs/web.md) answers its own paths; everything else is the API's.
        const request = { method: req.method ?? 'GET', path, query: url.searchParams, host: req.headers.host };
        // The page's stylesheet and script read no copy: answered here, never kept.
        const page = isStaticPath(path)
          ? await handleWebRequest(request, { store, syncs: options.syncs, now: () => new Date() })
          : isPagePath(path)
            ? // The page's links name the host it was asked by: a part of the key as much as the URL.
              await kept(`${request.method} ${request.host ?? ''} ${req.url ?? ''}`, async () => (await answers.page(request))!)
            : undefined;
        if (page !== undefined) return await writePage(res, page, log(page.status));
        r = await route(req, path);
      }
    } catch (err) {
      // The request's own mistakes (a full-text query FTS refuses) are 400s; anything else is ours, said on stderr only.
      if (err instanceof BadRequest || err instanceof UsageError) r = errorResponse(400, err.message);
      else if (err instanceof TooLarge) r = errorResponse(413, `request body too large (at most ${MAX_BODY_BYTES} bytes)`, { connection: 'close' });
      else if (err instanceof Unavailable) r = errorResponse(503, err.message, { 'retry-after': String(err.retryAfter) });
      else {
        options.fault(err);
        r = errorResponse(500, 'internal error');
      }
    }
    // A stream that failed once started was cut (writePage): nothing more to answer.
    if (res.headersSent) return;
    const bytes = Buffer.byteLength(r.body);
    res.once('finish', () => options.log?.(accessLine(req.method ?? '', path, r.status, bytes, performance.now() - started)));
    res.writeHead(r.status, { ...SAFE_HEADERS, 'content-type': JSON_TYPE, 'content-length': bytes, ...corsHeaders(options.cors, req.headers.origin), ...r.headers });
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
          void answers.close().then(resolve);
        });
        server.closeIdleConnections();
      }),
  };
}
