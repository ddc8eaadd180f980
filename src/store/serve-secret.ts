import { randomBytes } from 'node:crypto';

/**
 * The one row of `serve_secret`: the secret `tenders serve` signs cursors with.
 * Written by the sync that makes or upgrades the copy (the server only reads),
 * so that every server of one copy accepts the others' cursors. A table of its
 * own, so that a role may be let read the tenders and not it.
 */
export const SERVE_SECRET_TABLE = 'CREATE TABLE serve_secret (secret TEXT NOT NULL)';

/** 32 random bytes, as base64url text. */
export function newServeSecret(): string {
  return randomBytes(32).toString('base64url');
}
