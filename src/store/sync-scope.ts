import type { StoredTender } from './store.js';

/**
 * What `tenders serve --sync NAME…` serves: those syncs' tenders, changes and
 * files; undefined serves every sync. The API and the page decide with these
 * alone, so both draw the same line.
 */
export type SyncScope = readonly string[] | undefined;

/** Whether the sync named is served. */
export function servesSync(scope: SyncScope, name: string): boolean {
  return scope === undefined || scope.includes(name);
}

/** Whether a stored tender is served: a served sync holds it, or held it before it went. */
export function servesTender(scope: SyncScope, stored: StoredTender): boolean {
  return scope === undefined || stored.syncs.some((name) => scope.includes(name));
}

/** The syncs a request covers: the one it names (none when not served), else every served one (undefined: all). */
export function scopedSyncs(scope: SyncScope, sync?: string): string[] | undefined {
  if (sync === undefined) return scope && [...scope];
  return servesSync(scope, sync) ? [sync] : [];
}
