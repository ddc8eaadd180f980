import type { ApiResponse } from '../contract/response.js';
import { withoutCredentials } from '../model/redact.js';
import type { Store } from '../store/store.js';
import { servesSync } from '../store/sync-scope.js';
import { SYNC_FILES } from './downloads.js';
import { KEY_PARAM, subscriptionKey } from './subscription-keys.js';

/**
 * `GET /api/v1/syncs`: each sync served, with what a colleague needs to
 * subscribe: its saved query and service (never a credential), its last run
 * and whether it completed, how many tenders it holds, and the absolute URL
 * of each of its files (origin.ts), each carrying its key (`?key=`) when a
 * token protects the server, for clients that cannot send one.
 */
export async function listSyncs(store: Store, opts: { origin: string | undefined; token?: string; syncs?: readonly string[] }): Promise<ApiResponse> {
  const served = (await store.listSyncs()).filter((sync) => servesSync(opts.syncs, sync.name));
  const url = (path: string) => {
    const key = opts.token === undefined ? '' : `?${new URLSearchParams({ [KEY_PARAM]: subscriptionKey(opts.token, path) }).toString()}`;
    return `${opts.origin ?? ''}${path}${key}`;
  };
  const syncs = served.map((sync) => {
    const files = Object.fromEntries(Object.keys(SYNC_FILES).map((file) => [file, url(`/syncs/${encodeURIComponent(sync.name)}/${file}`)]));
    return {
      name: sync.name,
      query: sync.query,
      service: withoutCredentials(sync.service),
      lastRun: sync.lastRun.endedAt,
      complete: sync.lastRun.complete,
      error: sync.lastRun.error,
      lastComplete: sync.lastComplete,
      lastChange: sync.lastChange,
      tenders: sync.tenders,
      subscriptions: {
        calendar: files['deadlines.ics'],
        webcal: opts.origin === undefined ? undefined : files['deadlines.ics']!.replace(/^https?:/, 'webcal:'),
        feed: files['changes.atom'],
      },
      files,
    };
  });
  return { status: 200, body: JSON.stringify({ syncs }) };
}
