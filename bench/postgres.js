// The PostgreSQL copy for the bench's sync case: a throwaway cluster started as the tests
// start theirs (scripts/postgres-cluster.js), with the server's default durability (fsync
// and synchronous_commit on: what a user's server does), in a temporary directory of its
// own (the server's user must reach it: the bench's own is private); one database, a
// fresh schema for every first sync.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresBin, startCluster, stopCluster } from '../scripts/postgres-cluster.js';

const USER = 'tenders_bench';
const PASSWORD = 'bench';
/** Clusters started and not yet stopped: stopClusters() ends them when the bench is interrupted. */
const running = new Set();

/**
 * Starts a cluster and resolves to the copy the sync case writes: its URL,
 * `fresh()` (drops the copy's schema), `count(sql)` (one number, by psql) and `stop()`;
 * undefined when PostgreSQL is not installed.
 */
export async function postgresCopy() {
  const bin = postgresBin();
  if (!bin) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'tenders-bench-postgres-'));
  running.add(dir);
  let port;
  try {
    port = await startCluster(dir, { user: USER, password: PASSWORD, settings: { fsync: 'on', full_page_writes: 'on', synchronous_commit: 'on' } });
  } catch (err) {
    stop(dir);
    throw err;
  }
  const server = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
  const psql = (sql) => {
    const env = { ...process.env, PGOPTIONS: '-c search_path=bench' };
    const r = spawnSync(join(bin, 'psql'), [server, '-X', '-At', '-v', 'ON_ERROR_STOP=1', '-c', sql], { encoding: 'utf8', env });
    if (r.status !== 0) throw new Error(`psql: ${r.stderr.trim()}`);
    return r.stdout.trim();
  };
  return {
    url: `${server}?schema=bench`,
    fresh: () => psql('DROP SCHEMA IF EXISTS bench CASCADE'),
    count: (sql) => Number(psql(sql)),
    stop: () => stop(dir),
  };
}

/** Stops and removes every cluster postgresCopy started. */
export function stopClusters() {
  for (const dir of running) stop(dir);
}

function stop(dir) {
  stopCluster(dir);
  rmSync(dir, { recursive: true, force: true });
  running.delete(dir);
}
