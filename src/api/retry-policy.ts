/** Statuses worth another try: rate limiting and transient server trouble. */
export const RETRY_STATUSES = [429, 500, 502, 503, 504];

/**
 * Connection failures and timeouts, as undici names them. Not ENOTFOUND: a
 * name that does not resolve will not resolve a second later (EAI_AGAIN, a
 * name server that did not answer, may).
 */
export const RETRY_ERROR_CODES = [
  'ECONNRESET',
  'ECONNREFUSED',
  'EAI_AGAIN',
  'ENETDOWN',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EHOSTUNREACH',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
];

export const BACKOFF_BASE_MS = 500;
export const BACKOFF_MAX_MS = 30_000;
/** Spread added to a Retry-After, so that clients told the same time do not all come back at once. */
export const RETRY_AFTER_JITTER_MS = 100;

/** Why an attempt is repeated, as client stats count it: a status ("503"), "timeout", "connection", "broken-body". */
export type RetryCause = string;

/** The stats cause of a retryable undici error code: a timeout or a connection failure. */
export function causeOfCode(code: string): RetryCause {
  return /TIMEOUT|ETIMEDOUT/.test(code) ? 'timeout' : 'connection';
}

/**
 * Milliseconds the service asked us to wait, from a Retry-After header holding
 * either delta-seconds or an HTTP date; undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Delay before retry number `attempt` (1-based): the server's Retry-After in
 * full when given, else exponential backoff with "equal jitter" so that many
 * clients failing together do not come back together.
 */
export function retryDelayMs(attempt: number, retryAfter: number | undefined, random = Math.random): number {
  if (retryAfter !== undefined) return retryAfter + Math.floor(random() * RETRY_AFTER_JITTER_MS);
  const ceiling = Math.min(BACKOFF_BASE_MS * 2 ** (attempt - 1), BACKOFF_MAX_MS);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

export type RetryDecision =
  | { kind: 'retry'; waitMs: number }
  /** --retries used up: this failure is the run's. */
  | { kind: 'give-up' }
  /** The service asks for a longer wait than --max-wait allows: end now, saying when to come back. */
  | { kind: 'too-long'; waitMs: number };

/**
 * After failed attempt number `attempt` of at most `retries + 1`: one budget
 * for every kind of failure, whatever mix of them a page meets.
 */
export function decideRetry(
  attempt: number,
  policy: { retries: number; maxWaitMs: number },
  retryAfter: number | undefined,
  random = Math.random,
): RetryDecision {
  if (retryAfter !== undefined && retryAfter > policy.maxWaitMs) return { kind: 'too-long', waitMs: retryAfter };
  if (attempt > policy.retries) return { kind: 'give-up' };
  return { kind: 'retry', waitMs: retryDelayMs(attempt, retryAfter, random) };
}
