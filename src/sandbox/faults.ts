export type MalformedKind = 'html' | 'nopage' | 'noresults' | 'twoarrays' | 'truncated' | 'huge';
export const MALFORMED_KINDS: MalformedKind[] = ['html', 'nopage', 'noresults', 'twoarrays', 'truncated', 'huge'];

/** Misbehaviour on purpose, for tests. "Every N" counts requests from 1 since start or setFaults. */
export interface Faults {
  latencyMs?: number;
  rateLimitEvery?: number;
  /** Retry-After: seconds ("1" by default), or "date" for an HTTP date about a second ahead. */
  retryAfter?: string;
  errorEvery?: number;
  errorStatus?: number;
  dropEvery?: number;
  /** Send the headers and half the body, then close the connection. */
  cutEvery?: number;
  stallEvery?: number;
  stallMs?: number;
  malformedEvery?: number;
  malformed?: MalformedKind;
  failAfter?: number;
  failStatus?: number;
  repeatOverlap?: boolean;
  insertPerRequest?: number;
  resultsKey?: string;
}

export type FaultDecision =
  | { kind: 'fail'; status: number }
  | { kind: 'drop' }
  | { kind: 'cut' }
  | { kind: 'rateLimit'; retryAfter: string }
  | { kind: 'error'; status: number }
  | { kind: 'stall'; ms: number }
  | { kind: 'malformed'; malformed: MalformedKind }
  | undefined;

const every = (n: number, period: number | undefined) => period !== undefined && period > 0 && n % period === 0;

/** The fault for request number `n`, by precedence: fail, drop, cut, 429, error, stall, malformed. */
export function decideFault(f: Faults, n: number): FaultDecision {
  if (f.failAfter !== undefined && n > f.failAfter) return { kind: 'fail', status: f.failStatus ?? 503 };
  if (every(n, f.dropEvery)) return { kind: 'drop' };
  if (every(n, f.cutEvery)) return { kind: 'cut' };
  if (every(n, f.rateLimitEvery)) {
    const retryAfter = f.retryAfter === 'date' ? new Date(Date.now() + 1500).toUTCString() : (f.retryAfter ?? '1');
    return { kind: 'rateLimit', retryAfter };
  }
  if (every(n, f.errorEvery)) return { kind: 'error', status: f.errorStatus ?? 503 };
  if (every(n, f.stallEvery)) return { kind: 'stall', ms: f.stallMs ?? 5000 };
  if (every(n, f.malformedEvery)) return { kind: 'malformed', malformed: f.malformed ?? 'html' };
  return undefined;
}

/** A 200 body that breaks the paging contract in the given way, from a good one. */
export function malformedBody(kind: Exclude<MalformedKind, 'huge'>, good: string): { body: string; contentType: string } {
  const page = '"page":{"nextCursor":null,"total":null}';
  switch (kind) {
    case 'html':
      return {
        contentType: 'text/html; charset=utf-8',
        body: '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>upstream error</p></body></html>',
      };
    case 'nopage':
      return { contentType: 'application/json', body: '{"tenders":[]}' };
    case 'noresults':
      return { contentType: 'application/json', body: `{${page}}` };
    case 'twoarrays':
      return { contentType: 'application/json', body: `{"tenders":[],"highlights":[],${page}}` };
    case 'truncated':
      return { contentType: 'application/json', body: good.slice(0, Math.max(1, Math.floor(good.length / 2))) };
  }
}

/** A valid JSON body of `bytes` bytes, in chunks: a response no client should accept whole. */
export function* hugeBody(bytes: number): Generator<string> {
  const head = '{"tenders":[],"page":{"nextCursor":null,"total":null},"padding":"';
  const tail = '"}';
  yield head;
  const chunk = 'x'.repeat(1 << 20);
  let left = bytes - head.length - tail.length;
  while (left > 0) {
    const n = Math.min(left, chunk.length);
    yield n === chunk.length ? chunk : chunk.slice(0, n);
    left -= n;
  }
  yield tail;
}
