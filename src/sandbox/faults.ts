export type MalformedKind = 'html' | 'nopage' | 'noresults' | 'twoarrays' | 'truncated' | 'huge';
export const MALFORMED_KINDS: MalformedKind[] = ['html', 'nopage', 'noresults', 'twoarrays', 'truncated', 'huge'];

/** Misbehaviour on purpose, for tests. "Every N" counts requests from 1 since start or setFaults. */
export interface Faults {
  latencyMs?: number;
  rateLimitEvery?: number;
  /** Retry-After: seconds ("1" by default), "date" for an HTTP date about a second ahead, or "none" for no header. */
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
  /**
   * From the Nth request on, the first one that carries a cursor is answered
   * with that same cursor as nextCursor, and so is every later request that
   * carries it: a client that follows nextCursor blindly pages forever.
   */
  cursorCycleAt?: number;
  /** Send every answer's body `trickleBytes` (default 8) bytes at a time, one chunk every MS; the headers at once. */
  trickleMs?: number;
  trickleBytes?: number;
  /** Every tenth tender (by id number) carries EXOTIC_FIELDS: numbers a double cannot hold, keys named like Object.prototype's. */
  exoticFields?: boolean;
  /** Answers to requests after the Kth give every tender a DRIFT_FIELD earlier pages did not have. */
  driftAfter?: number;
  /** Pages out of the requested order: the first item swapped with the last whose sort key differs from it. */
  missort?: boolean;
}

export type FaultDecision =
  | { kind: 'fail'; status: number }
  | { kind: 'drop' }
  | { kind: 'cut' }
  | { kind: 'rateLimit'; retryAfter: string | undefined }
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
    const retryAfter = f.retryAfter === 'date' ? new Date(Date.now() + 1500).toUTCString() : f.retryAfter === 'none' ? undefined : (f.retryAfter ?? '1');
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

/**
 * The raw fields of an exotic tender, as JSON text: an integer beyond 64 bits, one
 * beyond 2^53, a decimal with more digits than a double keeps, and keys that
 * shadow Object.prototype (`__proto__` as an own field of the text).
 */
export const EXOTIC_FIELDS =
  '"bigRef":12345678901234567890,"exactAmount":9007199254740993,"precise":0.10000000000000000555,' +
  '"toString":"plain data","constructor":{"name":"plain data"},"hasOwnProperty":false,"__proto__":{"polluted":true}';

/** Which tenders are exotic: every tenth by the number in its id, so it never changes with the data. */
export function isExotic(id: string): boolean {
  return Number(id.slice(id.indexOf('-') + 1)) % 10 === 0;
}

/** The field schema drift adds to every tender. */
export const DRIFT_FIELD = '"amendment":{"number":1,"reason":"Corrigendum: clarification of the tender documents"}';

/** A JSON object's text with raw `fields` text added as its last members. */
export function withRawFields(json: string, fields: string): string {
  return `${json.slice(0, -1)}${json.length > 2 ? ',' : ''}${fields}}`;
}

/**
 * Puts a page out of order in place: swaps its first item with the last one whose
 * sort key differs from the first's (the last item when all keys are equal), so
 * a client comparing sort keys sees the order broken whenever a page has two keys.
 */
export function missort<T>(items: T[], keyOf: (item: T) => unknown): void {
  if (items.length < 2) return;
  const first = keyOf(items[0]!);
  let j = items.length - 1;
  while (j > 0 && keyOf(items[j]!) === first) j--;
  if (j === 0) j = items.length - 1;
  [items[0], items[j]] = [items[j]!, items[0]!];
}
