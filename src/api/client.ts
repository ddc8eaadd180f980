import { EnvHttpProxyAgent, Pool, type Dispatcher } from 'undici';
import { formatBinarySize, formatSize } from '../model/numbers.js';
import type { Env } from '../io.js';
import {
  BadResponseError,
  describeTlsError,
  excerpt,
  htmlSummary,
  InvalidCursorError,
  NetworkError,
  NOT_THE_SERVICE,
  RetryAfterTooLongError,
  ServiceError,
} from './errors.js';
import { parseJson } from '../model/json-parse.js';
import { ProxyError, forwardedRefusalMessage, proxyFromEnv, proxyRefusal, proxySettings, redactProxy, refusalMessage } from './proxy.js';
import { RateGovernor, realClock, type Clock } from './rate.js';
import { RETRY_ERROR_CODES, RETRY_STATUSES, causeOfCode, decideRetry, retryAfterMs } from './retry-policy.js';

export interface ClientOptions {
  baseUrl: URL;
  timeoutMs: number;
  /** At most this many retries per request, whatever the mix of failures. */
  retries: number;
  /** A Retry-After longer than this ends the run instead of being waited out (--max-wait). */
  maxWaitMs: number;
  /** Requests per second across the run (--rate); unlimited when absent. */
  rate?: number;
  /** Where HTTP(S)_PROXY and NO_PROXY are read from. */
  env: Env;
  /** One line per HTTP attempt (--verbose). */
  log?: (line: string) => void;
  /** A person waiting at a terminal: told of each retry on one line that replaces itself, cleared when the request ends. */
  retryNotice?: RetryNotice;
  /** Tests: a MockAgent instead of the network; a clock of their own for waits and pace. */
  dispatcher?: Dispatcher;
  clock?: Clock;
  /** How log lines and errors name a request instead of its path (a webhook's URL without its secrets). */
  name?: string;
  /** What answers, as the advice of a failed connection names it ('the webhook'); the service, with its base URL, unless told. */
  peer?: string;
  /** `any`: a 2xx answer's body is not read as JSON (a webhook answers "ok"); default `json`. */
  answer?: 'json' | 'any';
  /** Sent with every request besides the JSON ones (a webhook URL's credentials as Basic authorization). */
  headers?: Record<string, string>;
}

/** The line a terminal shows while a request is retried ("connection refused, retrying in 2 s (2 of 6)"). */
export interface RetryNotice {
  show(line: string): void;
  clear(): void;
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

interface UndiciError extends Error {
  code?: string;
}

/**
 * POSTs JSON to the service over one keep-alive dispatcher per run: undici's
 * EnvHttpProxyAgent (HTTP(S)_PROXY / NO_PROXY), paced by a RateGovernor.
 *
 * Retries are one loop of ours with one counter per page, not undici's
 * RetryAgent: RetryAgent can only resume a body broken midway with a Range
 * request, which a search POST cannot honour, so such a page had a second
 * loop and a second budget ((N+1)² requests); and it retries each request
 * alone, while a Retry-After or a 429 must pace every chain of the run.
 */
export class ApiClient implements Client {
  readonly stats: ClientStats = { requests: 0, retries: {} };
  readonly #dispatcher: Dispatcher;
  readonly #origin: string;
  readonly #prefix: string;
  readonly #rate: RateGovernor;
  readonly #clock: Clock;
  /** Whether the service answered JSON before: an HTML page after that is a hiccup of the way, not a wrong base URL. */
  #answeredJson = false;

  constructor(private readonly opts: ClientOptions) {
    this.#origin = opts.baseUrl.origin;
    this.#prefix = opts.baseUrl.pathname.replace(/\/+$/, '');
    // undici's own timeouts stay as a second guard behind the whole-attempt
    // deadline (they run on a coarse timer, so the deadline usually fires first).
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
    this.#dispatcher = opts.dispatcher ?? agent;
    this.#clock = opts.clock ?? realClock;
    this.#rate = new RateGovernor({ rate: opts.rate, log: opts.log, clock: this.#clock });
  }

  /** POST a JSON body (already serialised) and return the parsed JSON answer, retrying what can be retried. */
  async post(path: string, body: string, signal?: AbortSignal): Promise<{ status: number; json: unknown }> {
    const shown = this.opts.name ?? path;
    let noticed = false;
    try {
      return await this.#postWithRetries(path, body, shown, signal, () => (noticed = true));
    } finally {
      // The retry line goes before anything else is said (the answer, the final error).
      if (noticed) this.opts.retryNotice?.clear();
    }
  }

  async #postWithRetries(path: string, body: string, shown: string, signal: AbortSignal | undefined, noticed: () => void): Promise<{ status: number; json: unknown }> {
    for (let attempt = 1; ; attempt++) {
      const turn = this.#rate.acquire(signal);
      if (turn) await turn;
      const sentAt = this.#rate.now();
      let failure: Retryable;
      try {
        const answer = await this.#attempt(path, body, signal);
        this.#rate.succeeded();
        return answer;
      } catch (err) {
        if (!(err instanceof Retryable)) throw err;
        failure = err;
      }
      const decision = decideRetry(attempt, this.opts, failure.retryAfterMs);
      if (decision.kind === 'too-long') {
        throw new RetryAfterTooLongError(failure.status!, shown, decision.waitMs, this.opts.maxWaitMs);
      }
      if (failure.retryAfterMs !== undefined) this.#rate.pause(failure.retryAfterMs);
      else if (failure.status === 429) this.#rate.slowDown(sentAt);
      if (decision.kind === 'give-up') throw this.#gaveUp(failure, shown);

      this.stats.retries[failure.kind] = (this.stats.retries[failure.kind] ?? 0) + 1;
      this.opts.log?.(
        `POST ${shown} ${failure.why}: retry ${attempt}/${this.opts.retries} in ${decision.waitMs} ms` +
          (failure.retryAfterMs !== undefined ? ` (Retry-After ${Math.round(failure.retryAfterMs / 1000)} s)` : ''),
      );
      if (this.opts.retryNotice) {
        this.opts.retryNotice.show(`${failure.short}, retrying in ${formatWait(decision.waitMs)} (${attempt + 1} of ${this.opts.retries + 1})`);
        noticed();
      }
      await this.#clock.sleep(decision.waitMs, signal);
    }
  }

  /**
   * One request, from sending it to the last byte of its answer, within
   * --timeout as a whole. Throws Retryable for what another attempt may cure.
   */
  async #attempt(requestPath: string, body: string, signal: AbortSignal | undefined): Promise<{ status: number; json: unknown }> {
    const path = this.opts.name ?? requestPath;
    const started = performance.now();
    this.stats.requests++;
    // A signal of its own for each attempt: undici leaves a listener on the
    // signal it is given, so one shared by a whole walk would grow with it.
    const request = new AbortController();
    const deadline = setTimeout(() => request.abort(), this.opts.timeoutMs);
    const abort = () => request.abort(signal?.reason);
    if (signal?.aborted) abort();
    signal?.addEventListener('abort', abort, { once: true });
    // Why an aborted attempt ended: the caller's signal, else the deadline.
    const aborted = (phase: string): Error =>
      signal?.aborted
        ? (signal.reason as Error)
        : new Retryable('timeout', `no complete response within ${this.opts.timeoutMs} ms (whole-attempt --timeout): ${phase}`);
    try {
      let res: Dispatcher.ResponseData;
      try {
        res = await this.#dispatcher.request({
          origin: this.#origin,
          path: this.#prefix + requestPath,
          method: 'POST',
          headers: { ...this.opts.headers, 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'tenders-cli' },
          body,
          signal: request.signal,
        });
      } catch (err) {
        if (request.signal.aborted) throw aborted('nothing had arrived');
        this.opts.log?.(`POST ${path} failed: ${(err as Error).message}`);
        throw this.#failure(err as UndiciError, path);
      }
      const status = res.statusCode;
      let text: string;
      try {
        text = await res.body.text();
      } catch (err) {
        if (request.signal.aborted) throw aborted('the body was still arriving');
        const e = err as UndiciError;
        if (e.code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
          throw new BadResponseError(status, path, `the body is larger than ${formatBinarySize(MAX_RESPONSE_BYTES)}`);
        }
        if (e.code === 'UND_ERR_BODY_TIMEOUT') throw new Retryable('timeout', describeCode(e.code, this.opts.timeoutMs)!, { cause: e });
        // undici could only resume a broken body with a Range request, which
        // a search POST cannot honour: the whole page is asked for again.
        if (e.code !== undefined && RETRY_ERROR_CODES.includes(e.code)) {
          throw new Retryable('broken-body', 'the response broke off midway', { cause: e });
        }
        throw this.#failure(e, path);
      }
      const ms = Math.round(performance.now() - started);
      this.opts.log?.(`POST ${path} ${status} ${formatSize(Buffer.byteLength(text))} ${ms} ms`);
      const proxy = this.opts.baseUrl.protocol === 'http:' ? proxyFromEnv('http:', this.opts.env) : undefined;
      if (status === 403 && proxy) {
        // A forwarding proxy's refusal is a status like the service's: name both.
        throw new ProxyError(forwardedRefusalMessage(proxy, path, serviceMessage(text) ?? (excerpt(text) || 'no body')));
      }
      if (RETRY_STATUSES.includes(status)) {
        throw new Retryable(String(status), String(status), { status, retryAfterMs: retryAfterMs(res.headers['retry-after']) });
      }
      if (status < 200 || status >= 300) throw errorFromStatus(status, path, text, this.opts.baseUrl);
      if (this.opts.answer === 'any') return { status, json: undefined };
      try {
        const json = parseJson(text);
        this.#answeredJson = true;
        return { status, json };
      } catch {
        const html = htmlSummary(text);
        if (html) {
          const advice = this.#answeredJson ? '' : `: ${notTheService(this.opts.baseUrl)}`;
          throw new BadResponseError(status, path, `the body is ${html}, not JSON${advice}`);
        }
        throw new BadResponseError(status, path, 'the body is not JSON', excerpt(text));
      }
    } finally {
      clearTimeout(deadline);
      signal?.removeEventListener('abort', abort);
    }
  }

  /** Finish open connections (after success) or drop them (after an abort). */
  async close(force = false): Promise<void> {
    try {
      await (force ? this.#dispatcher.destroy() : this.#dispatcher.close());
    } catch {
      // Closing is best effort: it must not hide the error that ended the run.
    }
  }

  /** The error of a page whose retries ran out (or were turned off). */
  #gaveUp(failure: Retryable, path: string): Error {
    const retries = this.opts.retries;
    const gaveUp = retries > 0 ? ` (gave up after ${retries} ${retries === 1 ? 'retry' : 'retries'})` : '';
    if (failure.status !== undefined) {
      return new ServiceError(failure.status, path, retries > 0 ? `still failing${gaveUp}` : 'not retried (--retries 0)', '');
    }
    return new NetworkError(`cannot get POST ${path} from ${this.#origin}${this.#viaProxy()}: ${failure.why}${gaveUp}`, {
      cause: failure.cause,
    });
  }

  /** A failure before any answer: Retryable for connection errors and timeouts, else final. */
  #failure(err: UndiciError, path: string): Error {
    const refusal = proxyRefusal(err);
    const proxy = proxyFromEnv(this.opts.baseUrl.protocol, this.opts.env);
    if (refusal && proxy) return new ProxyError(refusalMessage(refusal, proxy, path, this.opts.baseUrl), { cause: err });
    const { timeoutMs, baseUrl, peer } = this.opts;
    const what = describeCode(err.code, timeoutMs, peer) ?? describeTlsError(err, baseUrl, peer) ?? err.message;
    if (err.code !== undefined && RETRY_ERROR_CODES.includes(err.code)) return new Retryable(causeOfCode(err.code), what, { cause: err });
    return new NetworkError(`cannot get POST ${path} from ${this.#origin}${this.#viaProxy()}: ${what}`, { cause: err });
  }

  /** Names the proxy a failed request may have gone to, without credentials (NO_PROXY is not weighed). */
  #viaProxy(): string {
    const proxy = proxyFromEnv(this.opts.baseUrl.protocol, this.opts.env);
    return proxy ? ` (through the proxy ${redactProxy(proxy.url)}, unless NO_PROXY excludes it)` : '';
  }
}

/** A failed attempt that another may cure. */
class Retryable extends Error {
  override name = 'Retryable';
  /** What happened in a few words, for the line a terminal shows while retrying. */
  readonly short: string;
  /** The status of an answer that asks for a retry. */
  status?: number;
  retryAfterMs?: number;
  constructor(
    /** The stats key: "503", "timeout", "connection", "broken-body". */
    readonly kind: string,
    /** What happened, for the --verbose retry line and the line when retries run out. */
    readonly why: string,
    options?: { cause?: unknown; status?: number; retryAfterMs?: number },
  ) {
    super(why, options);
    this.short = options?.status !== undefined ? `the service answered ${options.status}` : why.replace(/ \(.*$/, '');
    this.status = options?.status;
    this.retryAfterMs = options?.retryAfterMs;
  }
}

function errorFromStatus(status: number, path: string, text: string, baseUrl: URL): Error {
  const message = serviceMessage(text);
  if (status === 400 && message !== undefined && /invalid cursor/i.test(message)) return new InvalidCursorError(path);
  const html = htmlSummary(text);
  if (html) return new ServiceError(status, path, `${html}: ${notTheService(baseUrl)}`, '');
  return new ServiceError(status, path, message, excerpt(text));
}

/** The advice of an answer from some other web server, naming the base URL. */
function notTheService(baseUrl: URL): string {
  return `${NOT_THE_SERVICE} (it is ${baseUrl.href.replace(/\/$/, '')})`;
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

/** A retry's wait as a person reads it: "0.6 s", "2 s", "30 s". */
function formatWait(ms: number): string {
  return ms < 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/** `peer`: what was asked, when it is not the service (whose base URL the user may have mistyped). */
function describeCode(code: string | undefined, timeoutMs: number, peer?: string): string | undefined {
  switch (code) {
    case 'ECONNREFUSED':
      return peer ? `connection refused (is ${peer} up, and its URL right?)` : 'connection refused (is the base URL right and the service up?)';
    case 'ENOTFOUND':
      return `host name not found (is ${peer ? `the URL of ${peer}` : 'the base URL'} right?)`;
    case 'EAI_AGAIN':
      return 'host name not found (the name server did not answer)';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed unexpectedly';
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `could not connect within ${timeoutMs} ms (connect timeout, --timeout)`;
    case 'UND_ERR_HEADERS_TIMEOUT':
      return `no response headers within ${timeoutMs} ms (headers timeout, --timeout)`;
    case 'UND_ERR_BODY_TIMEOUT':
      return `the response stalled for more than ${timeoutMs} ms between bytes (body timeout, --timeout)`;
    default:
      return undefined;
  }
}
