import { createHash } from 'node:crypto';
import { UsageError } from '../errors.js';
import { stringifyExact } from '../model/exact-json.js';
import type { LocalSelection } from '../model/local-selection.js';

/**
 * The `--cursor` of a local query's next page: the last id shown, bound to
 * the selection it came from (a cursor of another selection, or of the
 * online service, would continue a different list). Opaque to the user:
 * `L1.` then base64url JSON `{"a": id, "q": digest of the selection}`.
 */
const PREFIX = 'L1.';

/**
 * The selection's digest: its filters and order, and which date bounds it has but not their
 * instants, which a relative bound (--since 7d, --deadline-after now) moves with the clock:
 * the next page's command, run as printed, resolves them later than the first page did.
 */
function digest(selection: LocalSelection): string {
  const keys = Object.keys(selection).sort() as (keyof LocalSelection)[];
  return createHash('sha256')
    .update(stringifyExact(Object.fromEntries(keys.map((key) => [key, DATE_BOUNDS.has(key) ? true : selection[key]]))))
    .digest('base64url')
    .slice(0, 12);
}

const DATE_BOUNDS = new Set<keyof LocalSelection>(['publishedSince', 'publishedUntil', 'deadlineAfter', 'deadlineBefore']);

export function encodeLocalCursor(selection: LocalSelection, lastId: string): string {
  return PREFIX + Buffer.from(JSON.stringify({ a: lastId, q: digest(selection) })).toString('base64url');
}

/** The id to continue after; a cursor that is not a local one, or of another selection, is a UsageError. */
export function decodeLocalCursor(cursor: string, selection: LocalSelection): string {
  if (!cursor.startsWith(PREFIX)) {
    throw new UsageError('--cursor: this is not a cursor of a local query (a cursor of the online service pages the service, not the copy): run the local query without --cursor');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const { a, q } = (parsed ?? {}) as { a?: unknown; q?: unknown };
  if (typeof a !== 'string' || typeof q !== 'string') throw new UsageError('--cursor: not a cursor tenders gave (it is cut or changed): copy it whole from the "Next page" hint');
  if (q !== digest(selection)) {
    throw new UsageError('--cursor belongs to a local query with other filters or another order: repeat the command of the "Next page" hint as it is');
  }
  return a;
}
