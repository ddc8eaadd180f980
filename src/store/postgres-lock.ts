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
export async function lockRun(
  client: pg.ClientBase,
  schema: string,
  name: string,
  me: Holder,
  kind: 'sync' | 'watch' = 'sync',
  /** Ends a wait for a dead holder's lock (Ctrl-C), with its reason. */
  signal?: AbortSignal,
): Promise<string> {
  const key = lockKey(schema, `${kind} ${name}`);
  // Truncated by the server past 63 bytes: the host is last.
  await client.query(`SELECT set_config('application_name', $1, false)`, [`tenders ${me.pid} ${me.since.slice(0, 19)}Z ${me.host}`.slice(0, 63)]);
  const deadline = performance.now() + GONE_HOLDER_WAIT_MS;
  for (;;) {
    const got = (await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [key])).rows[0]!.ok;
    if (got) {
      await holderSettings(client).catch(async (err: unknown) => {
        await client.query('SELECT pg_advisory_unlock($1::bigint)', [key]).catch(() => undefined);
        throw err;
      });
      return key;
    }
    const holder = await holderOf(client, key);
    // A run killed a moment ago holds its lock until the server notices its connection is gone.
    const dead = holder !== undefined && sameHost(holder, me.host) && !processAlive(holder.pid);
    if ((dead || holder === undefined) && performance.now() < deadline) {
      await sleep(100, undefined, { signal }).catch(() => {
        throw signal!.reason;
      });
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

/** Applies HOLDER_SETTINGS the server has; one it refuses (no connection checks on its platform: 22023) is done without. */
async function holderSettings(client: pg.ClientBase): Promise<void> {
  for (const [name, value] of Object.entries(HOLDER_SETTINGS)) {
    await client.query('SELECT set_config(name, $2, false) FROM pg_settings WHERE name = $1', [name, value]).catch((err: unknown) => {
      if ((err as { code?: string }).code !== '22023') throw err;
    });
  }
}

/** Whether a holder is of this host: its name as the holder wrote it, or its start when the server cut the name at 63 bytes. */
function sameHost(holder: Holder & { cut: boolean }, host: string): boolean {
  return holder.cut ? host.startsWith(holder.host) : host === holder.host;
}

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
async function holderOf(client: pg.ClientBase, key: string): Promise<(Holder & { cut: boolean }) | undefined> {
  const k = BigInt.asUintN(64, BigInt(key));
  const rows = await client.query<{ application_name: string | null; pid: number }>(
    `SELECT a.application_name, a.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::oid AND l.objid = $2::oid AND l.objsubid = 1
       AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [String(k >> 32n), String(k & 0xffffffffn)],
  );
  const name = rows.rows[0]?.application_name ?? '';
  const match = /^tenders (\d+) (\S+) (.*)$/.exec(name);
  return match ? { pid: Number(match[1]), since: match[2]!, host: match[3]!, cut: Buffer.byteLength(name) >= 63 } : undefined;
}
