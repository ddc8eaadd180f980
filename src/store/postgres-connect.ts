/**
 * Connecting to the PostgreSQL copy: the URL (its password never printed),
 * the schema the tables live in, a pool of bounded size whose connections
 * search only that schema, and connection failures as one line: retried a
 * few times when they may pass (refused, reset, timed out, server starting),
 * never when they will not (a refused login, a missing database).
 * Whatever the URL leaves out is taken from libpq's variables (PGHOST,
 * PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE) and ~/.pgpass
 * ($PGPASSFILE) of the command's environment, as psql takes them: given to
 * pg explicitly, so that pg never reads the process's own.
 */

import { createReadStream } from 'node:fs';
import { userInfo } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { parseIntoClientConfig } from 'pg-connection-string';
import { InterruptedError, RunError, UsageError } from '../errors.js';
import { parseJson } from '../model/json-parse.js';
import { withoutPasswords } from '../model/redact.js';

export interface Target {
  /** The URL for pg, without `schema`. */
  connectionString: string;
  /** The URL as printed: no password. */
  location: string;
  /** The schema named by ?schema= or the option; undefined: the server's current_schema(). */
  schema: string | undefined;
}

export function parseTarget(url: string, schemaOption: string | undefined): Target {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`${redact(url)} is not a PostgreSQL URL: postgres://[user[:password]@][host][:port][/database][?schema=NAME]`);
  }
  const schema = parsed.searchParams.get('schema') ?? (schemaOption || undefined);
  parsed.searchParams.delete('schema');
  if (schema !== undefined) checkSchemaName(schema);
  // A password in the userinfo or as a parameter (pg reads both).
  const location = new URL(parsed.href);
  location.password = '';
  location.searchParams.delete('password');
  if (schema !== undefined) location.searchParams.set('schema', schema);
  return { connectionString: parsed.href, location: location.href, schema };
}

/** A schema name the server takes and tenders may fill: not empty, up to 63 bytes, not one of PostgreSQL's own (pg_...). */
function checkSchemaName(schema: string): void {
  const why =
    schema === '' || schema.length > 63 || schema.includes('\0')
      ? 'a PostgreSQL schema name has 1 to 63 characters'
      : schema.startsWith('pg_')
        ? "names beginning with pg_ are PostgreSQL's own"
        : undefined;
  if (why) throw new UsageError(`'${schema}' is not a schema tenders can keep its tables in: ${why}`);
}

/**
 * A URL-like text that does not parse, without anything that may be a password: the
 * userinfo up to the last `@` (a password may hold `@` and `/`, which is why it did not parse).
 */
function redact(text: string): string {
  return text.replace(/^(postgres(?:ql)?:\/\/[^:/@]*):.*@/i, '$1@');
}

/** `"name"`: an identifier quoted for SQL. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

const parseTimestamp = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ);

/** Timestamps as ISO text, bigints as numbers, JSON with every digit (a saved query's big numbers): what the Store interface gives. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.TIMESTAMPTZ) return (value: string) => (parseTimestamp(value) as Date).toISOString();
    if (oid === pg.types.builtins.JSON || oid === pg.types.builtins.JSONB) return (value: string) => parseJson(value);
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

/** The environment a connection reads libpq's variables from (OpenOptions.env). */
export type LibpqEnv = Readonly<Record<string, string | undefined>>;

/**
 * pg's settings for the URL: what it says, else the libpq variables of
 * `env`, else libpq's defaults (localhost:5432, the login name, a database of
 * the user's name). Without a password, one is looked up in ~/.pgpass
 * ($PGPASSFILE) when the server asks for it (pg's own lookup reads the
 * process's variables and prints a deprecation warning).
 */
export function clientConfig(connectionString: string, env: LibpqEnv): pg.ClientConfig {
  // sslmode is read here, as PGSSLMODE is: pg's parser of the URL prints a 9-line warning for
  // require, prefer and verify-ca on every command (a cron mail each run), and means the same.
  const parsed = new URL(connectionString);
  const sslmode = parsed.searchParams.getAll('sslmode').pop();
  parsed.searchParams.delete('sslmode');
  const url = parseIntoClientConfig(parsed.href);
  const user = url.user || env.PGUSER || userInfo().username;
  const where = { host: url.host || env.PGHOST || 'localhost', port: url.port || Number(env.PGPORT) || 5432, user, database: url.database || env.PGDATABASE || user };
  const password = (typeof url.password === 'string' && url.password) || env.PGPASSWORD;
  // pg takes a function's undefined as "no password" (its types say string).
  const lookUp = (() => passwordFile(env, where)) as () => Promise<string>;
  const ssl = sslmode !== undefined ? withCertificates(sslMode(sslmode, 'sslmode'), url.ssl) : (url.ssl ?? sslMode(env.PGSSLMODE, 'PGSSLMODE'));
  return { ...url, ...where, ssl, password: password || lookUp };
}

/**
 * sslmode as pg reads it: disable (and allow, whose first try is plain), else (prefer, require,
 * verify-ca, verify-full) TLS; no-verify: TLS without checking the certificate. Any other value is
 * refused, as libpq refuses it: a mistyped `require` must not connect in plain text.
 */
function sslMode(mode: string | undefined, name: string): pg.ClientConfig['ssl'] {
  if (mode === undefined || mode === '' || mode === 'disable' || mode === 'allow') return false;
  if (mode === 'no-verify') return { rejectUnauthorized: false };
  if (mode === 'prefer' || mode === 'require' || mode === 'verify-ca' || mode === 'verify-full') return true;
  throw new UsageError(`${name}=${mode} is not an SSL mode: disable, allow, prefer, require, verify-ca, verify-full or no-verify`);
}

/** TLS as the URL's sslmode asks, with the certificates its sslcert, sslkey and sslrootcert name. */
function withCertificates(mode: pg.ClientConfig['ssl'], certificates: pg.ClientConfig['ssl']): pg.ClientConfig['ssl'] {
  if (mode === false || typeof certificates !== 'object' || certificates === null) return mode;
  return { ...certificates, ...(typeof mode === 'object' ? mode : {}) };
}

/** The password of a ~/.pgpass ($PGPASSFILE) line matching the connection, as libpq reads the file (mode 0600 or stricter). */
async function passwordFile(env: LibpqEnv, connection: { host: string; port: number; database: string; user: string }): Promise<string | undefined> {
  // Loaded when a server asks for a password the URL does not give: pgpass makes process.stderr's stream as it loads.
  const [{ default: pgpassFile }, { stat }] = await Promise.all([import('pgpass/lib/helper.js'), import('node:fs/promises')]);
  const file = pgpassFile.getFileName(env);
  const ok = await stat(file).then((s) => pgpassFile.usePgPass(s, file), () => false);
  if (!ok) return undefined;
  return new Promise((resolve) => pgpassFile.getPassword(connection, createReadStream(file), resolve));
}

export interface Connection {
  pool: pg.Pool;
  /** The schema the tables are in (search_path of every connection). */
  schema: string;
  /** Which copy this is, whatever the URL left to libpq's variables: user, server, database and schema. */
  identity: string;
  /** A message without the passwords of any URL in it. */
  scrub(message: string): string;
  /** What a failure is to report: the interruption (the signal's reason) once Ctrl-C cancelled the statements, else `err`. */
  interrupted(err: unknown): unknown;
  /** Throws the interruption once Ctrl-C came: a statement begun after it would not be cancelled. */
  check(): void;
}

const ATTEMPTS = 3;
const BACKOFF_MS = [250, 1000];
/** The server ended the session: shut down (57P01), crashed (57P02), or idle too long (57P05). */
const LOST = new Set(['57P01', '57P02', '57P05']);
/** Errors of reaching the server that may pass by themselves. */
const TRANSIENT = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EPIPE', '57P03', '53300']);

/** How long a login may take: the server unreachable, a connection waits no longer. */
const LOGIN_TIMEOUT_MS = 15_000;

/**
 * pg's Client for a pool: a time limit on its login (not the pool's option of that name, which would
 * also limit a wait for a free connection, which has none), and the search_path `schema()` gives
 * once it is known, so that every connection of the pool reads and writes the same schema.
 */
function poolClient(schema: () => string | undefined): typeof pg.Client {
  return class extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      const pinned = schema();
      const searchPath = pinned === undefined ? {} : { options: `-c search_path=${ident(pinned).replace(/\\/g, '\\\\').replace(/ /g, '\\ ')}` };
      // The pool hides the password it is given (not enumerable): taken by its name.
      super({ ...config, password: config?.password, connectionTimeoutMillis: LOGIN_TIMEOUT_MS, ...searchPath });
    }
  };
}

/**
 * A pool of at most `max` connections to the target, checked by one
 * connection first. `create`: make the named schema if it is missing.
 * `signal` (Ctrl-C) cancels the statement of every connection checked out
 * then: a read or write waiting on the server (a table someone locked) ends
 * at once, and fails with the interruption (Connection.interrupted).
 */
export async function connect(target: Target, max: number, create: boolean, env: LibpqEnv, signal?: AbortSignal): Promise<Connection> {
  // Only a URL's password is taken out: a password's text replaced wherever it stands garbled the
  // server's words (a password "b" made "data***ase") and so gave the password away.
  const scrub = withoutPasswords;
  // Keepalives: a run's lock connection idles through the walk, and a NAT or firewall must not drop it meanwhile
  // (the first probe after a minute: the system's default waits two hours, past any firewall's patience).
  const base = { ...clientConfig(target.connectionString, env), types, application_name: 'tenders', keepAlive: true, keepAliveInitialDelayMillis: 60_000 };
  // The schema: the one named, else the server's current_schema() for the first login, which every later connection is set to.
  let schema = target.schema;
  const pool = new pg.Pool({ ...base, Client: poolClient(() => schema), max });
  // An idle connection the server drops is not this process's failure.
  pool.on('error', () => undefined);
  if (signal) cancelOnAbort(pool, base, signal);
  try {
    // The pool's first connection is the one checked, and is kept for what follows: one login, where two took 12 ms more.
    const first = await firstLogin(() => pool.connect(), target, scrub);
    try {
      if (schema === undefined) {
        const row = (await first.query<{ s: string | null }>('SELECT current_schema() AS s')).rows[0];
        if (!row?.s) throw new UsageError(`${target.location}: no schema to keep the tables in (the search_path names none that exists): add ?schema=NAME`);
        schema = row.s;
        await first.query(`SET search_path TO ${ident(schema)}`);
      } else if (create && !(await schemaExists(first, schema))) {
        // Only when missing: CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege on the database even
        // for a schema that exists, which a team's writer, owning only its schema, does not have.
        await first.query(`CREATE SCHEMA IF NOT EXISTS ${ident(schema)}`);
      }
    } finally {
      first.release();
    }
    signal?.throwIfAborted();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw failure(err, target, scrub);
  }
  return {
    pool,
    schema,
    scrub,
    identity: `${base.user}@${base.host}:${base.port}/${base.database}/${schema}`,
    interrupted: (err) => (signal?.aborted ? signal.reason : err),
    check: () => signal?.throwIfAborted(),
  };
}

/**
 * On `signal`, cancels what every connection of `pool` checked out then is
 * doing (pg_cancel_backend), from a connection of its own: the pool's may all
 * be busy waiting.
 */
function cancelOnAbort(pool: pg.Pool, config: pg.ClientConfig, signal: AbortSignal): void {
  const busy = new Set<pg.PoolClient>();
  pool.on('acquire', (client) => busy.add(client));
  pool.on('release', (_err, client) => busy.delete(client));
  pool.on('remove', (client) => busy.delete(client as pg.PoolClient));
  signal.addEventListener(
    'abort',
    () => {
      const pids = [...busy].map((client) => (client as unknown as { processID: number | null }).processID).filter((pid) => pid !== null);
      if (pids.length === 0) return;
      const canceller = new pg.Client({ ...config, connectionTimeoutMillis: 5_000 });
      canceller.on('error', () => undefined);
      void canceller
        .connect()
        .then(() => canceller.query('SELECT pg_cancel_backend(pid) FROM unnest($1::int[]) AS pid', [pids]))
        .catch(() => undefined)
        .finally(() => void canceller.end().catch(() => undefined));
    },
    { once: true },
  );
}

/** Pool connections given an error listener. */
const quiet = new WeakSet<pg.PoolClient>();

/**
 * A connection of the pool, failures as one line: a connection lost while
 * checked out fails its query, and the event itself must not end the process.
 */
export async function checkOut(pool: pg.Pool, fail: (err: unknown) => Error): Promise<pg.PoolClient> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw fail(err);
  }
  if (!quiet.has(client)) {
    quiet.add(client);
    client.on('error', () => undefined);
  }
  return client;
}

/** Cancels the statement `client` is in (pg_cancel_backend, from another connection of the pool); nothing when it is in none. */
export async function cancelStatement(pool: pg.Pool, client: pg.ClientBase): Promise<void> {
  const pid = (client as unknown as { processID: number | null }).processID;
  if (pid !== null) await pool.query('SELECT pg_cancel_backend($1)', [pid]).catch(() => undefined);
}

/**
 * `work` on `client`, its statement cancelled when `signal` aborts (Ctrl-C):
 * a wait on the server (a lock another holds) ends at once, and the
 * interruption is what is thrown.
 */
export async function interruptible<T>(pool: pg.Pool, client: pg.ClientBase, signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
  if (!signal) return work();
  signal.throwIfAborted();
  const cancel = () => void cancelStatement(pool, client);
  signal.addEventListener('abort', cancel, { once: true });
  try {
    return await work();
  } catch (err) {
    throw signal.aborted ? signal.reason : err;
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}

async function schemaExists(client: pg.ClientBase, schema: string): Promise<boolean> {
  return (await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount! > 0;
}

/** `login()`, tried again after a pause when it fails in a way that may pass (the server starting, refusing for now). */
async function firstLogin<T>(login: () => Promise<T>, target: Target, scrub: (m: string) => string): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await login();
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      if (!TRANSIENT.has(code) || attempt >= ATTEMPTS) throw failure(err, target, scrub, TRANSIENT.has(code) ? attempt : undefined);
      await sleep(BACKOFF_MS[attempt - 1] ?? 1000);
    }
  }
}

/** A connection or set-up failure as one line naming the copy (password-free). */
export function failure(err: unknown, target: Target, scrub: (m: string) => string, attempts?: number): Error {
  if (err instanceof UsageError || err instanceof RunError || err instanceof InterruptedError) return err;
  const code = (err as { code?: string }).code ?? '';
  const raw = scrub(String((err as Error).message ?? err)).split('\n')[0]!;
  const tries = attempts && attempts > 1 ? ` (${attempts} attempts)` : '';
  const why =
    code === '28P01' || code === '28000'
      ? `the server refused the login: ${raw}`
      : /client password must be a string/.test(raw)
        ? 'the server asks for a password, and none was given (in the URL, PGPASSWORD or ~/.pgpass)'
      : code === '3D000'
        ? `${raw}: create it (createdb) or name another in the URL`
        : code === '42501'
          ? `not allowed: ${raw}`
          : TRANSIENT.has(code) || /^E[A-Z]+$/.test(code)
            ? `cannot reach the PostgreSQL server: ${raw}${tries}`
            : LOST.has(code) || /^Connection terminated|connection error and is not queryable/.test(raw)
              ? `lost the connection to the PostgreSQL server (stopped, restarted, or the connection ended): ${raw}`
              : raw;
  return new RunError(`${target.location}: ${why}`);
}
