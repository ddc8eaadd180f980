import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { expect } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { postgresBin, startCluster, stopCluster } from '../../scripts/postgres-cluster.js';
import { onStderr } from './child-stderr.js';
import { whenDir } from './dir-events.js';
import { noteMissingTool } from './tools.js';

/**
 * A real PostgreSQL server for the tests: one throwaway cluster per test run,
 * started by the first test file that asks for it (under a lock, so parallel
 * workers share it), in the run's temporary directory, on a free loopback
 * port, as an unprivileged user (scripts/postgres-cluster.js, shared with the
 * bench). The run's global teardown stops it (stopPostgres). Each caller gets
 * databases of its own.
 */
export interface PostgresServer {
  host: string;
  port: number;
  user: string;
  password: string;
  /** A new, empty database; its URL carries the password. */
  createDatabase(prefix?: string): Promise<string>;
}

interface Ready {
  port: number;
  user: string;
  password: string;
}

const USER = 'tenders_test';
const PASSWORD = 'pg-Secret:/@word';

export { postgresBin };

/** Why PostgreSQL tests cannot run here, in one line, or undefined when they can. */
export const POSTGRES_MISSING = postgresBin() ? undefined : 'PostgreSQL tests skipped: install PostgreSQL (apt-get install -y postgresql) to run them';
if (POSTGRES_MISSING) noteMissingTool('postgresql', 'apt-get install postgresql');

/** The run's cluster, started on first use. */
export async function postgres(): Promise<PostgresServer> {
  const dir = join(tmpdir(), 'postgres');
  const ready = await (claim(dir) ? start(dir) : awaitReady(dir));
  return {
    host: '127.0.0.1',
    port: ready.port,
    user: ready.user,
    password: ready.password,
    createDatabase: (prefix = 'test') => createDatabase(ready, prefix),
  };
}

/** Stops the run's cluster if a test started one (the global teardown calls this). */
export function stopPostgres(runDir: string): void {
  stopCluster(join(runDir, 'postgres'));
}

function claim(dir: string): boolean {
  try {
    mkdirSync(dir); // atomic: one worker wins
    return true;
  } catch {
    return false;
  }
}

async function start(dir: string): Promise<Ready> {
  try {
    if (!postgresBin()) throw new Error(POSTGRES_MISSING);
    const port = await startCluster(dir, { user: USER, password: PASSWORD });
    const ready: Ready = { port, user: USER, password: PASSWORD };
    await writeFile(join(dir, 'ready.tmp'), JSON.stringify(ready));
    await rename(join(dir, 'ready.tmp'), join(dir, 'ready.json'));
    return ready;
  } catch (err) {
    await writeFile(join(dir, 'failed.json'), JSON.stringify({ message: (err as Error).message })).catch(() => undefined);
    throw err;
  }
}

/** Waits, on directory events, for the worker that won the claim to say the server is up (or that it failed). */
async function awaitReady(dir: string): Promise<Ready> {
  await mkdir(dir, { recursive: true });
  const outcome = await new Promise<string>((resolve) => {
    whenDir(
      dir,
      async () => existsSync(join(dir, 'ready.json')) || existsSync(join(dir, 'failed.json')),
      () => resolve(existsSync(join(dir, 'ready.json')) ? 'ready.json' : 'failed.json'),
    );
  });
  const text = JSON.parse(await readFile(join(dir, outcome), 'utf8')) as Ready & { message?: string };
  if (outcome === 'failed.json') throw new Error(`the test PostgreSQL server did not start: ${text.message}`);
  return text;
}

async function createDatabase(ready: Ready, prefix: string): Promise<string> {
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const admin = new pg.Client({ host: '127.0.0.1', port: ready.port, user: ready.user, password: ready.password, database: 'postgres' });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return `postgres://${ready.user}:${encodeURIComponent(ready.password)}@127.0.0.1:${ready.port}/${name}`;
}

/**
 * Ends a spawned tenders' connections to the server at `url`, as a restart or
 * a firewall would, once its --verbose stderr shows `n` requests: `onSpawn`
 * for runCli; `requestsThen()` is how many requests it had shown when they ended.
 */
export function endConnectionsAfterRequests(n: number, url: string): { onSpawn: (child: ChildProcess) => void; requestsThen: () => number } {
  let seen = 0;
  let then = Infinity;
  const onSpawn = (child: ChildProcess) =>
    onStderr(child, /\* POST/g, async () => {
      if (++seen !== n) return;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE $1', [`tenders ${child.pid} %`]);
        then = seen;
      } finally {
        await admin.end();
      }
    });
  return { onSpawn, requestsThen: () => then };
}

/** Waits until `n` connections of tenders (a run's named with its pid) wait for a lock another holds (asked from a connection of its own: its view is fresh). */
async function waitForWaiters(url: string, n: number): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    for (;;) {
      const { rows } = await admin.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'tenders%' AND wait_event_type = 'Lock'",
      );
      if (rows[0]!.n >= n) return;
      await admin.query('SELECT pg_sleep(0.02)');
    }
  } finally {
    await admin.end();
  }
}

/** Runs `body` while another connection holds `table` locked (ACCESS EXCLUSIVE), as a tool may; the lock goes however `body` ends. */
export async function whileLocked<T>(url: string, table: string, body: () => Promise<T>): Promise<T> {
  const locker = new pg.Client({ connectionString: url });
  await locker.connect();
  try {
    await locker.query(`BEGIN; LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    return await body();
  } finally {
    await locker.query('ROLLBACK').catch(() => undefined);
    await locker.end();
  }
}

/**
 * Ctrl-C while `waits` wait on the server: once as many tenders connections wait for a lock another
 * holds, `interrupt` aborts, and each must fail with the interruption itself. Resolves to it.
 */
export async function interruptWhileWaiting(url: string, interrupt: AbortController, waits: Promise<unknown>[]): Promise<InterruptedError> {
  for (const wait of waits) wait.catch(() => undefined);
  await waitForWaiters(url, waits.length);
  const reason = new InterruptedError('SIGINT');
  interrupt.abort(reason);
  for (const wait of waits) await expect(wait).rejects.toBe(reason);
  return reason;
}
