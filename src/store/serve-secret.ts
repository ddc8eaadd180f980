/**
 * The one row of `serve_secret`: the secret `tenders serve` signs cursors with.
 * Written by the sync that makes or upgrades the copy (the server only reads),
 * so that every server of one copy accepts the others' cursors. A table of its
 * own, so that a role may be let read the tenders and not it.
 */
export const SERVE_SECRET_TABLE = 'CREATE TABLE serve_secret (secret TEXT NOT NULL)';

/**
 * 32 random bytes, as base64url text. From Web Crypto's global, which Node loads when it is first
 * used: a run that opens a copy only to read it (`show`, `search --local`) does not load
 * node:crypto (about 20 ms of its start-up) for a secret it never makes.
 */
export function newServeSecret(): string {
  return Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
}
