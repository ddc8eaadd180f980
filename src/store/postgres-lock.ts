/**
 * The PostgreSQL store's locks, all advisory, keyed by schema and purpose: one
 * per sync NAME and one per watch NAME (held by the run's connection from its
 * start to its end: a second run of the name fails at once, naming the holder;
 * the server frees it when that connection ends, killed or not), one that
 * serialises commits (and forgets) as SQLite's single writer does, one that
 * serialises upgrades. The holder of a run's lock names itself in its
 * connection's application_name.
 */

import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { processAlive, processId } from '../io.js';
import { RunError } from '../errors.js';

/** A signed 64-bit advisory lock key (decimal text) for `purpose` in `schema`. */
export function lockKey(schema: string, purpose: string): string {
  return createHash('sha256').update(`tenders\0${schema}\0${purpose}`).digest().readBigInt64BE(0).toString();
}

export interface Holder {
  pid: number;
  host: string;
  since: string;
}

/** Takes the lock of the sync (or watch) `name` on `client` (which holds it until released or closed), or throws a RunError naming its holder. */
export async function lockRun(client: pg.ClientBase, schema: string, name: string, me: Holder, kind: 'sync' | 'watch' = 'sync'): Promise<string> {
  const key = lockKey(schema, `${kind} ${name}`);
  // Truncated by the server past 63 bytes: the host is last.
  await client.query(`SELECT set_config('application_name', $1, false)`, [`tenders ${me.pid} ${me.since.slice(0, 19)}Z ${me.host}`.slice(0, 63)]);
  const deadline = performance.now() + GONE_HOLDER_WAIT_MS;
  for (;;) {
    const got = (await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [key])).rows[0]!.ok;
    if (got) {
      await client.query(`SELECT set_config(name, value, false) FROM unnest($1::text[], $2::text[]) s (name, value) WHERE name IN (SELECT name FROM pg_settings)`, [
        Object.keys(HOLDER_SETTINGS),
        Object.values(HOLDER_SETTINGS),
      ]);
      return key;
    }
    const holder = await holderOf(client, key);
    // A run killed a moment ago holds its lock until the server notices its connection is gone.
    const dead = holder !== undefined && me.host.startsWith(holder.host) && !processAlive(holder.pid);
    if ((dead || holder === undefined) && performance.now() < deadline) {
      await sleep(100);
      continue;
    }
    await client.query(`SELECT set_config('application_name', 'tenders', false)`);
    throw new RunError(
      `${kind} '${name}' is running already: ${
        dead
          ? `pid ${holder!.pid} on ${holder!.host} no longer runs, but its connection still holds the lock until the server ends the statement it was in`
          : holder
            ? `pid ${holder.pid} on ${holder.host}, since ${holder.since}`
            : 'another connection holds its lock'
      }; try again when it is done`,
    );
  }
}

/**
 * Settings of a connection while it holds a run's lock (those the server has:
 * idle_session_timeout and client_connection_check_interval are PostgreSQL
 * 14's). It waits on the service between pages: a server or its settings that
 * end idle sessions or transactions must not end it, and the lock with it.
 * Killed in a statement that waits (a commit behind another's), it is noticed
 * within a second rather than when the statement ends.
 */
const HOLDER_SETTINGS: Readonly<Record<string, string>> = {
  idle_session_timeout: '0',
  idle_in_transaction_session_timeout: '0',
  client_connection_check_interval: '1000',
};

/** How long a run waits for a lock whose holder has gone (killed on this host) or cannot be named. */
const GONE_HOLDER_WAIT_MS = 5_000;

/** Releases a run's lock; the connection goes back to the pool named as the others. */
export async function unlockRun(client: pg.ClientBase, key: string): Promise<void> {
  await client.query(`SELECT pg_advisory_unlock($1::bigint), set_config('application_name', 'tenders', false)`, [key]);
  await client.query(`SELECT set_config(name, reset_val, false) FROM pg_settings WHERE name = ANY($1::text[])`, [Object.keys(HOLDER_SETTINGS)]);
}

/** This process, as a lock's holder names itself. */
export function holderHere(): Holder {
  return { pid: processId(), host: hostname(), since: new Date().toISOString() };
}

/** Who holds the advisory lock `key`, from the application_name its connection set. */
async function holderOf(client: pg.ClientBase, key: string): Promise<Holder | undefined> {
  const k = BigInt.asUintN(64, BigInt(key));
  const rows = await client.query<{ application_name: string | null; pid: number }>(
    `SELECT a.application_name, a.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::oid AND l.objid = $2::oid AND l.objsubid = 1
       AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [String(k >> 32n), String(k & 0xffffffffn)],
  );
  const match = /^tenders (\d+) (\S+) (.*)$/.exec(rows.rows[0]?.application_name ?? '');
  return match ? { pid: Number(match[1]), since: match[2]!, host: match[3]! } : undefined;
}
