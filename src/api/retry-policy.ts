/** Statuses worth another try: rate limiting and transient server trouble. */
export const RETRY_STATUSES = [429, 500, 502, 503, 504];

/** Connection failures and timeouts, as undici names them. */
export const RETRY_ERROR_CODES = [
  'ECONNRESET',
  'ECONNREFUSED',
  'ENOTFOUND',
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
/** A Retry-After longer than this is not waited out in full: a cron job must end. */
export const RETRY_AFTER_MAX_MS = 120_000;

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
 * Delay before retry number `attempt` (1-based): the server's Retry-After when
 * given (capped), else exponential backoff with "equal jitter" so that many
 * clients failing together do not come back together.
 */
export function retryDelayMs(attempt: number, retryAfter: number | undefined, random = Math.random): number {
  if (retryAfter !== undefined) return Math.min(retryAfter, RETRY_AFTER_MAX_MS) + Math.floor(random() * 100);
  const ceiling = Math.min(BACKOFF_BASE_MS * 2 ** (attempt - 1), BACKOFF_MAX_MS);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
