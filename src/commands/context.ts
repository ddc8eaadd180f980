import type { Client, RetryNotice } from '../api/client.js';
import { ServiceError } from '../api/errors.js';
import type { IO } from '../io.js';
import type { FileSystem } from '../files/fs.js';
import { describeRequests } from '../output/dry-run.js';
import { createReporter } from '../output/terminal/reporter.js';
import { retryLine } from '../output/terminal/retry-line.js';
import { printTo } from '../files/sink.js';
import { serviceUrl } from '../query/endpoints.js';
import type { FirstRequest } from '../model/request.js';
import type { ConnectionPlan, RunDeps } from '../run/plan.js';

/** What every command's action gets beyond its flags, like gh's cmdutil.Factory. */
export interface CommandContext {
  io: IO;
  /** Aborted on SIGINT/SIGTERM. */
  signal: AbortSignal;
  /** The command line's arguments as given (for receipts). */
  argv: readonly string[];
  /** The words that ran the CLI (`tenders`, `npx tenders`, `node bin/tenders.js`), for commands it suggests. */
  invocation: readonly string[];
  /** The HTTP client of a run: undici's for the CLI, a fake or a MockAgent one in tests. */
  createClient(connection: ConnectionPlan, log?: (line: string) => void, retryNotice?: RetryNotice): Promise<Client>;
  /** The file system of output files: Node's unless a test injects failures. */
  fs?: FileSystem;
}

/**
 * Runs `run` with stdout through a pager when `wanted` (no -o, no --no-pager)
 * and the IO agrees (a terminal that is not dumb, a pager configured). The
 * pager is waited for before anything else is said on stderr.
 */
export async function withPager(ctx: CommandContext, connection: ConnectionPlan, wanted: boolean, run: () => Promise<void>): Promise<void> {
  const problem = wanted ? await ctx.io.startPager() : undefined;
  if (problem) createReporter(ctx.io, connection).warn(`${problem}; printing directly`);
  try {
    await run();
  } finally {
    await ctx.io.stopPager();
  }
}

/**
 * Runs `run` with a client for `connection`, closed afterwards (dropped when
 * the run failed). With --dry-run, no client is made and nothing runs: the
 * requests `firstRequests` names are printed on stdout instead.
 */
export async function withClient(
  ctx: CommandContext,
  connection: ConnectionPlan,
  run: (deps: RunDeps) => Promise<void>,
  firstRequests: () => FirstRequest[] | Promise<FirstRequest[]>,
): Promise<void> {
  if (connection.dryRun) {
    const text = describeRequests(await firstRequests(), (path) => serviceUrl(connection.baseUrl, path));
    return printTo(ctx.io.stdout, () => ctx.signal, text);
  }
  const say = createReporter(ctx.io, connection);
  // --verbose logs every retry; --quiet asks for silence; else a terminal shows each retry on one line.
  const notice = connection.verbose || connection.quiet ? undefined : retryLine(ctx.io);
  const client = await ctx.createClient(connection, connection.verbose ? say.debug : undefined, notice);
  let ok = false;
  try {
    await run({ io: ctx.io, client, signal: ctx.signal, fs: ctx.fs });
    ok = true;
  } catch (err) {
    // A search path the service does not have: most often a base URL with a wrong path. (An
    // organisation's 404 more likely names an unknown id: its command advises on that.)
    if (err instanceof ServiceError && err.status === 404 && !ORGANISATION.test(err.path)) {
      err.message += `: is the base URL right? (it is ${connection.baseUrl.href.replace(/\/$/, '')})`;
    }
    throw err;
  } finally {
    await client.close(!ok);
  }
}

const ORGANISATION = /\/organisations\/[^/]+\/tenders\/search$/;
