import { createHmac, timingSafeEqual } from 'node:crypto';

/** The query parameter that carries a subscription key: the server's, never a filter. */
export const KEY_PARAM = 'key';

/** The paths a subscription key may open: a sync's downloads and subscriptions, nothing else. */
export const SUBSCRIPTION_PREFIX = '/syncs/';

/**
 * The key of one path (`/syncs/deu/deadlines.ics`): HMAC-SHA256 of the path
 * under the server's token, base64url. Calendar and feed clients cannot send
 * an Authorization header, so their URL carries this as `?key=`; it opens
 * that path only (any selection of it), and a new token revokes every key.
 */
export function subscriptionKey(token: string, path: string): string {
  return createHmac('sha256', token).update(path).digest('base64url');
}

/** The query parameter (name, value) that opens a path under `token`: what the page's links to a sync's files carry (WebDeps.fileKey). */
export function keyParameter(token: string): (path: string) => readonly [string, string] {
  return (path) => [KEY_PARAM, subscriptionKey(token, path)];
}

/** Whether `key` is the key of `path` under `token`: GET or HEAD of a /syncs/ path only, compared in constant time. */
export function keyAdmits(token: string, method: string | undefined, path: string, key: string | null): boolean {
  if (key === null || (method !== 'GET' && method !== 'HEAD') || !path.startsWith(SUBSCRIPTION_PREFIX)) return false;
  const given = Buffer.from(key);
  const expected = Buffer.from(subscriptionKey(token, path));
  return given.length === expected.length && timingSafeEqual(given, expected);
}
