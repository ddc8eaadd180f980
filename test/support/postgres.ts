import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { chown, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { whenDir } from './dir-events.js';
import { noteMissingTool } from './tools.js';

/**
 * A real PostgreSQL server for the tests: one throwaway cluster per test run,
 * started by the first test file that asks for it (under a lock, so parallel
 * workers share it), in the run's temporary directory, on a free loopback
 * port, as an unprivileged user (as root, through `runuser -u postgres`). The
 * run's global teardown stops it (stopPostgres). Each caller gets databases
 * of its own.
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

/** Where Debian (or PATH) keeps initdb and pg_ctl, or undefined where PostgreSQL is not installed. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest) return join(root, newest, 'bin');
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

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
  const data = join(runDir, 'postgres', 'data');
  const bin = postgresBin();
  if (!bin || !existsSync(join(data, 'postmaster.pid'))) return;
  try {
    asServerUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
  } catch {
    // Already gone: the directory is removed next either way.
  }
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
    const bin = postgresBin();
    if (!bin) throw new Error(POSTGRES_MISSING);
    const data = join(dir, 'data');
    const pwfile = join(dir, 'pwfile');
    await writeFile(pwfile, PASSWORD);
    if (process.getuid?.() === 0) {
      const { uid, gid } = serverUser();
      await chown(dir, uid, gid);
      await chown(pwfile, uid, gid);
    }
    asServerUser(join(bin, 'initdb'), ['-D', data, '-U', USER, `--pwfile=${pwfile}`, '-A', 'scram-sha-256', '-E', 'UTF8', '--locale=C', '--no-sync']);
    const port = await freePort();
    // Durability is not what these tests are about: fsync off keeps a busy machine's tests quick.
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c synchronous_commit=off`;
    asServerUser(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '120', '-o', options, 'start']);
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

/** The postgres user Debian's package creates, which runs the server when the tests run as root. */
function serverUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** PostgreSQL refuses to run as root: as root, run its programs as the postgres user the package creates. */
function asServerUser(program: string, args: string[]): void {
  const [cmd, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, args];
  execFileSync(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'], cwd: '/' });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
