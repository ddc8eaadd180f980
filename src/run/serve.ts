import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IO } from '../io.js';
import { RunError, UsageError } from '../errors.js';
import { followedCopy } from '../serve/followed-copy.js';
import type { LimitOptions } from '../serve/request-limits.js';
import { startServer } from '../serve/server.js';
import { isPostgresLocation } from '../store/store.js';
import type { ListenAddress } from '../serve/listen.js';
import type { StoreTarget } from '../store/location.js';
import { openLocalCopy } from './local-copy.js';

/** `tenders serve`: which copy, where, and who may ask. */
export interface ServePlan {
  db: StoreTarget;
  listen: ListenAddress;
  tokenFile?: string;
  quiet: boolean;
  limits: Required<Pick<LimitOptions, 'queryTimeoutMs' | 'maxConcurrency'>>;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

/** The token of --token-file: its first line, which must not be empty. */
async function readToken(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--token-file: cannot read ${file}: ${(err as Error).message}`);
  }
  const token = text.split(/\r?\n/, 1)[0]!.trim();
  if (token === '') throw new UsageError(`--token-file: ${file} holds no token on its first line`);
  return token;
}

/**
 * Serves the copy until SIGINT or SIGTERM: prints the base URL as the first
 * line on stdout once listening, an access-log line per request on stderr;
 * on the signal stops listening, lets requests in flight finish, and returns
 * (exit 0).
 */
export async function runServe(plan: ServePlan, deps: { io: IO; signal: AbortSignal }): Promise<void> {
  const token = plan.tokenFile === undefined ? undefined : await readToken(plan.tokenFile);
  // PostgreSQL: a connection per request that may read at once, each statement bounded by the server itself.
  const bounds = { connections: plan.limits.maxConcurrency, statementTimeoutMs: plan.limits.queryTimeoutMs };
  const open = () => openLocalCopy(plan.db, undefined, deps.signal, bounds);
  const opened = await open();
  // SQLite: the file at the path is served, whichever it is now (a first sync's new copy, one restored).
  const store = isPostgresLocation(plan.db.location) ? opened : followedCopy(plan.db.location, opened, open);
  try {
    const say = (line: string) => deps.io.stderr.write(`${line}\n`);
    const server = await startServer({
      store,
      host: plan.listen.host,
      port: plan.listen.port,
      secret: randomBytes(32).toString('base64url'),
      token,
      limits: plan.limits,
      headersTimeoutMs: plan.headersTimeoutMs,
      requestTimeoutMs: plan.requestTimeoutMs,
      log: plan.quiet ? undefined : say,
      fault: (err) => say(`tenders: serve: ${(err as Error).message}`),
    }).catch((err: NodeJS.ErrnoException) => {
      throw new RunError(`cannot listen on ${plan.listen.host}:${plan.listen.port}: ${err.code ?? err.message}`);
    });
    deps.io.stdout.write(`${server.url}\n`);
    if (!deps.signal.aborted) await new Promise((resolve) => deps.signal.addEventListener('abort', resolve, { once: true }));
    await server.close();
  } finally {
    await store.close();
  }
}
