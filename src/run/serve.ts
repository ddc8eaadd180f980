import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { IO } from '../io.js';
import { RunError, UsageError } from '../errors.js';
import { followedCopy } from '../serve/followed-copy.js';
import type { MemoOptions } from '../serve/answer-memo.js';
import type { LimitOptions } from '../serve/request-limits.js';
import { startServer } from '../serve/server.js';
import { isPostgresLocation } from '../store/store.js';
import type { ListenAddress } from '../serve/listen.js';
import type { StoreTarget } from '../store/location.js';
import type { Store } from '../store/store.js';
import type { LogFormat } from '../serve/access-log.js';
import { openLocalCopy } from './local-copy.js';

/** `tenders serve`: which copy, where, and who may ask. */
export interface ServePlan {
  db: StoreTarget;
  listen: ListenAddress;
  tokenFile?: string;
  quiet: boolean;
  /** Serve only these syncs (`--sync`); all when absent. */
  syncs?: string[];
  /** Origins allowed to call the API from a browser (`--cors`). */
  cors?: string[];
  /** Sign cursors with this file's first line rather than the copy's secret. */
  secretFile?: string;
  logFormat: LogFormat;
  limits: Required<Pick<LimitOptions, 'queryTimeoutMs' | 'maxConcurrency'>>;
  /** Answers kept until the copy changes (`--cache-mb`, `--cache-ttl`). */
  memo: MemoOptions;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

declare const __TENDERS_SERVE_WORKER__: string | null;

/**
 * The file the threads that answer from a SQLite copy start from: dist/serve-worker.cjs beside
 * the bundle. null where src/ runs as it is (vitest): the answers are then made in the server's thread.
 */
const SERVE_WORKER: string | null = __TENDERS_SERVE_WORKER__ && join(__dirname, __TENDERS_SERVE_WORKER__);

/** The token of --token-file, the secret of --secret-file: the file's first line, which must not be empty. */
async function readFirstLine(flag: string, file: string, what: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${file}: ${(err as Error).message}`);
  }
  const line = text.split(/\r?\n/, 1)[0]!.trim();
  if (line === '') throw new UsageError(`${flag}: ${file} holds no ${what} on its first line`);
  return line;
}

/** Each of `syncs` must be a sync of the copy: else a usage error naming the ones there are. */
async function checkScope(store: Store, syncs: readonly string[] | undefined): Promise<void> {
  if (syncs === undefined) return;
  const known = (await store.listSyncs()).map((s) => s.name);
  const unknown = syncs.find((name) => !known.includes(name));
  if (unknown !== undefined) throw new UsageError(`--sync: the copy has no sync named '${unknown}'${known.length ? ` (there are: ${known.join(', ')})` : ''}`);
}

/**
 * What cursors are signed with: --secret-file's, else the copy's (every server of one copy
 * agrees on it), else one drawn now, said on stderr: a copy no sync has upgraded has none.
 */
async function cursorSecret(plan: ServePlan, store: Store, say: (line: string) => void): Promise<string> {
  if (plan.secretFile !== undefined) return readFirstLine('--secret-file', plan.secretFile, 'secret');
  const kept = await store.cursorSecret();
  if (kept !== undefined) return kept;
  say('tenders: serve: the copy keeps no cursor secret yet: cursors will not survive a restart until the next tenders sync');
  return randomBytes(32).toString('base64url');
}

/**
 * Serves the copy until SIGINT or SIGTERM: prints the base URL as the first
 * line on stdout once listening, an access-log line per request on stderr;
 * on the signal stops listening, lets requests in flight finish, and returns
 * (exit 0).
 */
export async function runServe(plan: ServePlan, deps: { io: IO; signal: AbortSignal }): Promise<void> {
  const token = plan.tokenFile === undefined ? undefined : await readFirstLine('--token-file', plan.tokenFile, 'token');
  // PostgreSQL: a connection per request that may read at once, each statement bounded by the server itself.
  const bounds = { connections: plan.limits.maxConcurrency, statementTimeoutMs: plan.limits.queryTimeoutMs };
  const open = () => openLocalCopy(plan.db, undefined, deps.signal, bounds);
  const opened = await open();
  // SQLite: the file at the path is served, whichever it is now (a first sync's new copy, one restored).
  const store = isPostgresLocation(plan.db.location) ? opened : followedCopy(plan.db.location, opened, open);
  try {
    const say = (line: string) => deps.io.stderr.write(`${line}\n`);
    // What the server starts with is read once, outside any request: not under --query-timeout,
    // which a tiny limit (or a busy database) would make the server's start fail on.
    const setup = await openLocalCopy(plan.db, undefined, deps.signal);
    let secret: string;
    try {
      await checkScope(setup, plan.syncs);
      secret = await cursorSecret(plan, setup, say);
    } finally {
      await setup.close();
    }
    const server = await startServer({
      store,
      host: plan.listen.host,
      port: plan.listen.port,
      secret,
      token,
      // A download reads through a connection of its own: one snapshot, which no other request shares or ends.
      // It streams as fast as its client reads: --query-timeout's limit would cut it, so it has none.
      // It reads the file rather than map it, so the server's memory does not grow with the copy.
      openReader: () => openLocalCopy(plan.db, undefined, deps.signal, { unmapped: true }),
      limits: plan.limits,
      memo: plan.memo,
      // SQLite: each request's reads on a thread of its own, which a request past its time leaves (answer-pool.ts);
      // a core each, no more than may read at once. PostgreSQL cancels its own statements.
      threads:
        isPostgresLocation(plan.db.location) || SERVE_WORKER === null
          ? undefined
          : { file: SERVE_WORKER, path: plan.db.location, size: Math.min(plan.limits.maxConcurrency, Math.max(2, availableParallelism())) },
      headersTimeoutMs: plan.headersTimeoutMs,
      requestTimeoutMs: plan.requestTimeoutMs,
      log: plan.quiet ? undefined : say,
      logFormat: plan.logFormat,
      syncs: plan.syncs,
      cors: plan.cors,
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
