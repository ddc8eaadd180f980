import { RunError } from '../errors.js';

const EXCERPT_CHARS = 120;

/**
 * A short excerpt of a response body for error messages, whitespace folded.
 * Other control characters stay: the CLI spells them out where it prints.
 */
export function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
}

/**
 * An HTML body (another web server answered: a static file server, a proxy's
 * error page, a website) said by its <title> and <h1>; undefined for any other body.
 */
export function htmlSummary(text: string): string | undefined {
  if (!/^\s*<(!doctype\s+html|html|head|body)\b/i.test(text)) return undefined;
  const inner = (tag: string) => {
    const match = new RegExp(`<${tag}\\b[^>]*>([\\s\\S]*?)</${tag}>`, 'i').exec(text);
    const words = match?.[1]!.replace(/<[^>]*>/g, '').replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => HTML_ENTITIES[name]!);
    return words ? excerpt(words) || undefined : undefined;
  };
  const names = [...new Set([inner('title'), inner('h1')].filter((name) => name !== undefined))];
  return `an HTML page${names.length ? ` (${names.map((name) => `"${name}"`).join(', ')})` : ''}`;
}

const HTML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

/** What an HTML answer means for a user: the base URL reaches some other web server. */
export const NOT_THE_SERVICE = 'this does not look like the tender service: is the base URL right?';

/** The service answered with an error status. */
export class ServiceError extends RunError {
  override name = 'ServiceError';
  constructor(
    readonly status: number,
    readonly path: string,
    readonly serviceMessage: string | undefined,
    bodyExcerpt: string,
  ) {
    const what = serviceMessage ?? (bodyExcerpt || 'no body');
    super(`the service answered ${status} to POST ${path}: ${what}`);
  }
}

/** 400 "invalid cursor": the cursor does not belong to this query. */
export class InvalidCursorError extends RunError {
  override name = 'InvalidCursorError';
  constructor(readonly path: string) {
    super(
      `the service rejected the cursor (400 invalid cursor on POST ${path}): it does not belong to these filters, ` +
        'sort field and sort order; start again without --cursor',
    );
  }
}

/** A 2xx response whose body is not what the paging contract promises. */
export class BadResponseError extends RunError {
  override name = 'BadResponseError';
  constructor(status: number, path: string, problem: string, bodyExcerpt?: string) {
    super(
      `bad response from the service (${status} to POST ${path}): ${problem}` +
        (bodyExcerpt ? `; it began: ${bodyExcerpt}` : ''),
    );
  }
}

/** The request could not be completed: connection, timeout, retries exhausted. */
export class NetworkError extends RunError {
  override name = 'NetworkError';
}

/** A Retry-After beyond --max-wait: the run ends at once, saying when to come back. */
export class RetryAfterTooLongError extends RunError {
  override name = 'RetryAfterTooLongError';
  constructor(status: number, path: string, waitMs: number, maxWaitMs: number, now = Date.now()) {
    const at = new Date(now + waitMs).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
    super(
      `the service answered ${status} to POST ${path} and accepts requests again at ${at}, in ${Math.ceil(waitMs / 1000)} s: ` +
        `longer than --max-wait ${maxWaitMs / 1000} s, so the run stops here (run it again after that time, or raise --max-wait)`,
    );
  }
}

/** The service handed back a cursor the walk has already followed: paging would never end. */
export class CursorCycleError extends RunError {
  override name = 'CursorCycleError';
  constructor(path: string, page: number, earlierPage: number, chain?: string) {
    super(
      `the service sent a cursor already used on POST ${path}${chain ? ` in the chain of ${chain}` : ''}: page ${page} points back to page ${earlierPage} ` +
        `(a paging loop), so the walk stops after page ${page - 1}`,
    );
  }
}

/** Certificate problems Node reports by code, said in words. */
const CERTIFICATE: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'is signed by a self-signed certificate not trusted here',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'is signed by an issuer not trusted here (NODE_EXTRA_CA_CERTS can add one)',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'is signed by an issuer not trusted here (NODE_EXTRA_CA_CERTS can add one)',
  CERT_HAS_EXPIRED: 'has expired',
  CERT_NOT_YET_VALID: 'is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'is for another host name',
};

/**
 * A TLS failure in one line instead of OpenSSL's dump; undefined when `err`
 * is not one. The common mistake, https:// to a plain-HTTP port, gets the
 * http:// URL to try. `peer` is what was asked: the service, or a webhook.
 */
export function describeTlsError(err: { code?: string; message: string }, baseUrl: URL, peer = 'the service'): string | undefined {
  const certificate = err.code !== undefined ? CERTIFICATE[err.code] : undefined;
  if (certificate) return `TLS handshake failed: ${peer}'s certificate ${certificate} (${err.code})`;
  if (err.code === 'ERR_SSL_WRONG_VERSION_NUMBER' || /wrong version number|packet length too long|http request/i.test(err.message)) {
    const plain = new URL(baseUrl.href);
    plain.protocol = 'http:';
    return `TLS handshake failed: is ${peer} plain http? try ${plain.href.replace(/\/$/, '')}`;
  }
  if (err.code?.startsWith('ERR_SSL_') || err.code?.startsWith('ERR_TLS_')) return `TLS handshake failed (${err.code})`;
  return undefined;
}
