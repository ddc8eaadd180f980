import { EnvHttpProxyAgent, Pool, RetryAgent, type Dispatcher } from 'undici';
import type { Env } from '../io.js';
import { BadResponseError, InvalidCursorError, NetworkError, ServiceError, excerpt } from './errors.js';
import { parseJson } from './json.js';
import { ProxyError, forwardedRefusalMessage, proxyFromEnv, proxyRefusal, proxySettings, redactProxy, refusalMessage } from './proxy.js';
import { RETRY_ERROR_CODES, RETRY_STATUSES, retryAfterMs, retryDelayMs } from './retry-policy.js';

export interface ClientOptions {
  baseUrl: URL;
  timeoutMs: number;
  retries: number;
  /** Where HTTP(S)_PROXY and NO_PROXY are read from. */
  env: Env;
  /** One line per HTTP attempt (--verbose). */
  log?: (line: string) => void;
}

/** What a client did, for --verbose summaries and receipts. */
export interface ClientStats {
  /** HTTP requests sent, retries included. */
  requests: number;
  /** Retries by cause: a status code ("503"), "timeout", "connection", "broken-body". */
  retries: Record<string, number>;
}

/** What a run needs of the service: POST a body, get JSON back. Tests hand in a fake. */
export interface Client {
  readonly stats?: ClientStats;
  post(path: string, body: string, signal?: AbortSignal): Promise<{ status: number; json: unknown }>;
  /** Finish open connections (after success) or drop them (after an abort). */
  close(force?: boolean): Promise<void>;
}

/** Far above the largest legitimate page (100 results), far below trouble. */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

type RetryCallback = (err?: Error | null) => void;
interface UndiciError extends Error {
  code?: string;
  statusCode?: number;
  headers?: Record<string, string | string[] | undefined>;
}

/**
 * POSTs JSON to the service over one keep-alive dispatcher per run: undici's
 * EnvHttpProxyAgent (HTTP(S)_PROXY / NO_PROXY) wrapped in its RetryAgent.
 */
export class ApiClient implements Client {
  readonly stats: ClientStats = { requests: 0, retries: {} };
  readonly #dispatcher: Dispatcher;
  readonly #origin: string;
  readonly #prefix: string;
  /** Signals of requests whose response has started: their failures are post()'s to retry. */
  readonly #responding = new WeakSet<AbortSignal>();

  constructor(private readonly opts: ClientOptions) {
    this.#origin = opts.baseUrl.origin;
    this.#prefix = opts.baseUrl.pathname.replace(/\/+$/, '');
    const connection = {
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      connect: { timeout: opts.timeoutMs },
      maxResponseSize: MAX_RESPONSE_BYTES,
    };
    const agent = new EnvHttpProxyAgent({
      ...proxySettings(opts.env),
      ...connection,
      // http:// services through an http:// proxy as forwarded requests
      // (absolute-form, as curl does); https:// services still tunnel (CONNECT).
      proxyTunnel: false,
      // undici builds the forwarding connection from `factory` alone, without
      // the options above: every pool gets them here.
      factory: (origin, options) => new Pool(origin, { ...connection, ...options }),
      proxyTls: { timeout: opts.timeoutMs }, // connecting to the proxy itself
    });
    this.#dispatcher = new RetryAgent(agent, {
      methods: ['POST'], // the search POST is a read: safe to repeat
      maxRetries: opts.retries,
      statusCodes: RETRY_STATUSES,
      errorCodes: RETRY_ERROR_CODES,
      retry: (err, context, cb) => this.#retry(err as UndiciError, context, cb),
    });
  }

  /** POST a JSON body (already serialised) and return the parsed JSON answer. */
  async post(path: string, body: string, signal?: AbortSignal): Promise<{ status: number; json: unknown }> {
    for (let attempt = 1; ; attempt++) {
      // A signal of its own for each request: undici leaves a listener on the
      // signal it is given, so one shared by a whole walk would grow with it.
      const request = new AbortController();
      const abort = () => request.abort(signal?.reason);
      if (signal?.aborted) abort();
      signal?.addEventListener('abort', abort, { once: true });
      try {
        return await this.#attempt(path, body, request.signal);
      } catch (err) {
        // A body that breaks midway undici could only resume with a Range
        // request, which a search POST cannot honour: ask for the page again.
        if (!(err instanceof BrokenBodyError) || attempt > this.opts.retries) {
          throw err instanceof BrokenBodyError ? this.#failure(err.cause as UndiciError, path) : err;
        }
        const wait = retryDelayMs(attempt, undefined);
        this.stats.retries['broken-body'] = (this.stats.retries['broken-body'] ?? 0) + 1; // post() sends it: counted there
        this.opts.log?.(`POST ${path} response broke off midway: retry ${attempt}/${this.opts.retries} in ${wait} ms`);
        await abortableDelay(wait, signal);
      } finally {
        signal?.removeEventListener('abort', abort);
      }
    }
  }

  async #attempt(path: string, body: string, signal: AbortSignal): Promise<{ status: number; json: unknown }> {
    const started = performance.now();
    this.stats.requests++;
    let res: Dispatcher.ResponseData;
    try {
      res = await this.#dispatcher.request({
        origin: this.#origin,
        path: this.#prefix + path,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'tenders-cli' },
        body,
        signal,
      });
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      this.opts.log?.(`POST ${path} failed: ${(err as Error).message}`);
      throw this.#failure(err as UndiciError, path);
    }
    this.#responding.add(signal);
    const status = res.statusCode;
    let text: string;
    try {
      text = await res.body.text();
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      const e = err as UndiciError;
      if (isBrokenBody(e)) throw new BrokenBodyError('the response broke off midway', { cause: e });
      if (e.code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
        throw new BadResponseError(status, path, `the body is larger than ${formatBytes(MAX_RESPONSE_BYTES)}`);
      }
      throw this.#failure(e, path);
    }
    const ms = Math.round(performance.now() - started);
    this.opts.log?.(`POST ${path} ${status} ${formatBytes(Buffer.byteLength(text))} ${ms} ms`);
    const proxy = this.opts.baseUrl.protocol === 'http:' ? proxyFromEnv('http:', this.opts.env) : undefined;
    if (status === 403 && proxy) {
      // A forwarding proxy's refusal is a status like the service's: name both.
      throw new ProxyError(forwardedRefusalMessage(proxy, path, serviceMessage(text) ?? (excerpt(text) || 'no body')));
    }
    if (status < 200 || status >= 300) throw errorFromStatus(status, path, text);
    try {
      return { status, json: parseJson(text) };
    } catch {
      throw new BadResponseError(status, path, 'the body is not JSON', excerpt(text));
    }
  }

  /** Finish open connections (after success) or drop them (after an abort). */
  async close(force = false): Promise<void> {
    await (force ? this.#dispatcher.destroy() : this.#dispatcher.close()).catch(() => undefined);
  }

  // Replaces undici's default retry decision to add jitter and --verbose lines;
  // the sequencing (re-dispatch, body replay) stays undici's.
  #retry(err: UndiciError, context: { state: { counter: number }; opts: Dispatcher.DispatchOptions }, cb: RetryCallback) {
    const attempt = context.state.counter;
    const signal = (context.opts as { signal?: AbortSignal }).signal;
    if (signal && this.#responding.has(signal)) return cb(err); // broke mid-body: see post()
    const retryable =
      err.code === 'UND_ERR_REQ_RETRY'
        ? RETRY_STATUSES.includes(err.statusCode ?? 0)
        : err.code !== undefined && RETRY_ERROR_CODES.includes(err.code);
    if (!retryable || attempt > this.opts.retries) return cb(err);

    const askedFor = retryAfterMs(err.headers?.['retry-after']);
    const wait = retryDelayMs(attempt, askedFor);
    const path = (context.opts.path ?? '').slice(this.#prefix.length);
    const why = err.code === 'UND_ERR_REQ_RETRY' ? String(err.statusCode) : describeCode(err.code, this.opts.timeoutMs);
    this.#countRetry(err.code === 'UND_ERR_REQ_RETRY' ? String(err.statusCode) : /TIMEOUT/.test(err.code ?? '') ? 'timeout' : 'connection');
    this.opts.log?.(
      `POST ${path} ${why}: retry ${attempt}/${this.opts.retries} in ${wait} ms` +
        (askedFor !== undefined ? ` (Retry-After ${Math.round(askedFor / 1000)} s)` : ''),
    );

    abortableDelay(wait, signal).then(
      () => cb(null),
      (reason: Error) => cb(reason),
    );
  }

  /** A retry undici re-dispatches itself, unseen by #attempt. */
  #countRetry(cause: string): void {
    this.stats.requests++;
    this.stats.retries[cause] = (this.stats.retries[cause] ?? 0) + 1;
  }

  #failure(err: UndiciError, path: string): Error {
    const retries = this.opts.retries;
    const gaveUp = retries > 0 ? ` (gave up after ${retries} ${retries === 1 ? 'retry' : 'retries'})` : '';
    if (err.code === 'UND_ERR_REQ_RETRY' && err.statusCode !== undefined) {
      return new ServiceError(err.statusCode, path, retries > 0 ? `still failing${gaveUp}` : 'not retried (--retries 0)', '');
    }
    const refusal = proxyRefusal(err);
    const proxy = proxyFromEnv(this.opts.baseUrl.protocol, this.opts.env);
    if (refusal && proxy) return new ProxyError(refusalMessage(refusal, proxy, path, this.opts.baseUrl), { cause: err });
    const what = describeCode(err.code, this.opts.timeoutMs) ?? err.message;
    const retried = err.code !== undefined && RETRY_ERROR_CODES.includes(err.code) ? gaveUp : '';
    return new NetworkError(`cannot get POST ${path} from ${this.#origin}${this.#viaProxy()}: ${what}${retried}`, { cause: err });
  }

  /** Names the proxy a failed request may have gone to, without credentials (NO_PROXY is not weighed). */
  #viaProxy(): string {
    const proxy = proxyFromEnv(this.opts.baseUrl.protocol, this.opts.env);
    return proxy ? ` (through the proxy ${redactProxy(proxy.url)}, unless NO_PROXY excludes it)` : '';
  }
}

/** The connection broke (or stalled) after the response had started. */
class BrokenBodyError extends Error {}

function isBrokenBody(err: UndiciError): boolean {
  return err.code !== undefined && RETRY_ERROR_CODES.includes(err.code);
}

function abortableDelay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function errorFromStatus(status: number, path: string, text: string): Error {
  const message = serviceMessage(text);
  if (status === 400 && message !== undefined && /invalid cursor/i.test(message)) return new InvalidCursorError(path);
  return new ServiceError(status, path, message, excerpt(text));
}

/** The `message` (or `error`) of a JSON error body, when there is one. */
function serviceMessage(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const message = body?.message ?? body?.error;
    return typeof message === 'string' ? excerpt(message) : undefined;
  } catch {
    return undefined;
  }
}

function describeCode(code: string | undefined, timeoutMs: number): string | undefined {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (is the base URL right and the service up?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not found';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed unexpectedly';
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `could not connect within ${timeoutMs} ms`;
    case 'UND_ERR_HEADERS_TIMEOUT':
      return `no response within ${timeoutMs} ms (see --timeout)`;
    case 'UND_ERR_BODY_TIMEOUT':
      return `the response stalled for more than ${timeoutMs} ms (see --timeout)`;
    default:
      return undefined;
  }
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} kB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
