import { UsageError } from '../errors.js';

/**
 * The `cursor` of /changes: the last change a page showed, by the keyset the
 * store orders changes by (time, then row key; the one the API's
 * changes/search cursor holds, unsigned here: it selects nothing the page
 * would not show anyway). The next page is the changes before it, so a sync
 * recording changes meanwhile adds them before the first page, never between
 * pages. Opaque to the reader: `C1.` then base64url JSON `{"at", "seq"}`.
 */
const PREFIX = 'C1.';

export interface ChangePosition {
  at: string;
  seq: number;
}

export function encodeChangesCursor(last: ChangePosition): string {
  return PREFIX + Buffer.from(JSON.stringify({ at: last.at, seq: last.seq })).toString('base64url');
}

/** The position to continue before; anything this page did not give is a UsageError. */
export function decodeChangesCursor(cursor: string): ChangePosition {
  let parsed: unknown;
  try {
    parsed = cursor.startsWith(PREFIX) ? JSON.parse(Buffer.from(cursor.slice(PREFIX.length), 'base64url').toString('utf8')) : undefined;
  } catch {
    parsed = undefined;
  }
  const { at, seq } = (parsed ?? {}) as { at?: unknown; seq?: unknown };
  if (typeof at !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(at) || typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) {
    throw new UsageError('cursor: not a cursor of this page (it is cut or changed): start again from the newest changes');
  }
  return { at, seq };
}
