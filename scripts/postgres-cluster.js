// A throwaway PostgreSQL cluster for the tests (test/support/postgres.ts) and the bench
// (bench/postgres.js): initdb in a directory of the caller, started with pg_ctl on a free
// loopback port, as an unprivileged user (as root, through `runuser -u postgres`: the
// server refuses to run as root), stopped and left for the caller to remove. Plain JS so
// that both can import it without a build.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** Where Debian (or PATH) keeps initdb and pg_ctl, or undefined where PostgreSQL is not installed. */
export function postgresBin() {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest) return join(root, newest, 'bin');
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Creates and starts a cluster in `dir` (which must exist; its `data` directory, socket
 * and `server.log` go there) with the superuser `user` / `password` (scram-sha-256),
 * and resolves to its port. `settings`: more `-c name=value` server settings.
 * Durability is not what tests and benches measure: fsync is off.
 */
export async function startCluster(dir, { user, password, settings = {} }) {
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install -y postgresql)');
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pwfile');
  writeFileSync(pwfile, password);
  if (process.getuid?.() === 0) {
    const { uid, gid } = serverUser();
    chownSync(dir, uid, gid);
    chownSync(pwfile, uid, gid);
  }
  asServerUser(join(bin, 'initdb'), ['-D', data, '-U', user, `--pwfile=${pwfile}`, '-A', 'scram-sha-256', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  const all = { listen_addresses: '127.0.0.1', fsync: 'off', full_page_writes: 'off', synchronous_commit: 'off', ...settings };
  const options = [`-p ${port}`, `-k ${dir}`, ...Object.entries(all).map(([name, value]) => `-c ${name}=${value}`)].join(' ');
  asServerUser(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '120', '-o', options, 'start']);
  return port;
}

/** Stops the cluster in `dir` at once, if one runs there (the caller removes the directory). */
export function stopCluster(dir) {
  const data = join(dir, 'data');
  const bin = postgresBin();
  if (!bin || !existsSync(join(data, 'postmaster.pid'))) return;
  try {
    asServerUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
  } catch {
    // Already gone: the directory is removed next either way.
  }
}

/** The postgres user Debian's package creates, which runs the server when the caller is root. */
function serverUser() {
  const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function asServerUser(program, args) {
  const [cmd, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, args];
  execFileSync(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'], cwd: '/' });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
