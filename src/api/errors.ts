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
