import { createHash } from 'node:crypto';
import { VERSION } from '../version.js';
import { KEY_PARAM } from './subscription-keys.js';

/** What a client revalidates a download with. */
export interface Validators {
  /** Weak: the same tenders in the same file, not the same bytes (a calendar's DTSTAMP, a feed's updated are the time it was made). */
  etag: string;
  /** The HTTP date of the copy's last change of the sync. */
  lastModified: string;
  /** That time in whole seconds (ms), as If-Modified-Since can say it. */
  modifiedMs: number;
}

/**
 * A download's validators: from the sync's last change (SyncInfo.lastChange, which a
 * run that changed nothing leaves as it was), the file, the sync, the query's
 * parameters (but the key: one ETag however the client is let in) and the
 * version of tenders that writes the file (an upgrade may write it otherwise).
 */
export function downloadValidators(lastChange: string, file: string, sync: string, query: URLSearchParams): Validators {
  const params = [...query].filter(([name]) => name !== KEY_PARAM).map(([name, value]) => `${name}=${value}`).sort();
  const hash = createHash('sha256').update(JSON.stringify([VERSION, sync, file, lastChange, params])).digest('base64url').slice(0, 27);
  const modifiedMs = Math.floor(Date.parse(lastChange) / 1000) * 1000;
  return { etag: `W/"${hash}"`, lastModified: new Date(modifiedMs).toUTCString(), modifiedMs };
}

/**
 * Whether the client's copy is current (RFC 9110 13.2.2): If-None-Match when
 * sent (weak comparison, `*` matches), else If-Modified-Since.
 */
export function notModified(v: Validators, ifNoneMatch: string | undefined, ifModifiedSince: string | undefined): boolean {
  if (ifNoneMatch !== undefined) {
    const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
    return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(v.etag));
  }
  if (ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && v.modifiedMs <= since;
}
