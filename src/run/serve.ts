import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IO } from '../io.js';
import { RunError, UsageError } from '../errors.js';
import { startServer } from '../serve/server.js';
import type { ListenAddress } from '../serve/listen.js';
import type { StoreTarget } from '../store/location.js';
import { openLocalCopy } from './local-copy.js';

/** `tenders serve`: which copy, where, and who may ask. */
export interface ServePlan {
  db: StoreTarget;
  listen: ListenAddress;
  tokenFile?: string;
  quiet: boolean;
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
  const store = await openLocalCopy(plan.db, undefined, deps.signal);
  try {
    const say = (line: string) => deps.io.stderr.write(`${line}\n`);
    const server = await startServer({
      store,
      host: plan.listen.host,
      port: plan.listen.port,
      secret: randomBytes(32).toString('base64url'),
      token,
      // A download reads through a connection of its own: one snapshot, which no other request shares or ends.
      openReader: () => openLocalCopy(plan.db, undefined, deps.signal),
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
