import { parseArgs } from 'node:util';
import { MALFORMED_KINDS, type Faults, type MalformedKind } from './faults.js';
import { startSandbox, type Sandbox, type SandboxOptions } from './server.js';

const HELP = `Usage: tenders-sandbox [options]

A local tender search service (POST /api/v1/tenders/search, /api/v1/organisations/search,
/api/v1/organisations/{id}/tenders/search) over generated data. Prints its URL when ready.

Options:
  --port N                 port to listen on (default 0: a free one)
  --host HOST              address to listen on (default 127.0.0.1)
  --size N                 number of tenders (default 5000)
  --seed N                 data seed (default 1)
  --today YYYY-MM-DD       the day the data is as of (default: today, UTC): publication
                           dates span the two years up to it, open tenders' deadlines lie
                           after it; the same --seed and --today give the same data
  --cache                  memoise response bodies (benchmarks)
  --log FILE               append one JSON line per request to FILE
Faults ("every N" counts requests from 1):
  --latency MS             delay every response
  --rate-limit-every N     answer 429 with Retry-After
  --retry-after S|date|none
                           Retry-After in seconds (default 1), as an HTTP date about a
                           second ahead, or none: a 429 without the header
  --error-every N          answer --error-status (default 503)
  --drop-every N           close the connection without a response
  --cut-every N            send the headers and half the body, then close the connection
  --stall-every N          wait --stall-ms (default 5000) before answering
  --malformed-every N      answer 200 with a bad body of kind --malformed:
                           ${MALFORMED_KINDS.join(', ')} (default html)
  --fail-after K           answer --fail-status (default 503) to every request after the Kth
  --repeat-overlap         start each cursor page with the previous page's last tender
  --insert-per-request N   insert N new tenders after each request
  --results-key KEY        put tender results under KEY instead of "tenders"
  --cursor-cycle-at N      from the Nth request on, answer the first request that carries a
                           cursor (and every later one carrying it) with that same cursor as
                           nextCursor: a client that follows nextCursor blindly pages forever
  --trickle-ms MS          send every body --trickle-bytes (default 8) bytes at a time, one
                           chunk every MS; the headers at once
  --trickle-bytes N        chunk size of --trickle-ms (default 8)
  --exotic-fields          every tenth tender carries raw JSON fields a double cannot hold
                           (bigRef, exactAmount, precise) and keys named toString,
                           constructor, hasOwnProperty and __proto__
  --drift-after K          answers to requests after the Kth give every tender a new field,
                           "amendment", earlier pages did not have
  --missort                pages out of the requested order (first item swapped with the last
                           whose sort key differs)
  --outlive-parent         keep serving after the process that started it exits (by default
                           it stops then, so that \`kill $!\` on \`npx tenders-sandbox &\`, which
                           signals only npx, stops it too)
  -h, --help               show this help

Sandbox only (the CLI never calls it): POST /__sandbox/mutate with a JSON body
{"insert":N,"update":M,"close":K,"remove":R,"seed":S} (every field optional) publishes
N tenders newer than all others, changes the deadline, value and/or title of M open
ones, closes K open ones and deletes R, picked by the seed; it answers
{"inserted":[ids],"updated":[ids],"closed":[ids],"removed":[ids]}. It is not in the
request log and not counted for faults.
`;

const int = (name: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new Error(`--${name} takes a whole number, not '${value}'`);
  return Number(value);
};

const positive = (name: string, value: string | undefined): number | undefined => {
  const n = int(name, value);
  if (n === 0) throw new Error(`--${name} takes a whole number above 0`);
  return n;
};

const status = (name: string, value: string | undefined): number | undefined => {
  const code = int(name, value);
  if (code !== undefined && (code < 100 || code > 599)) throw new Error(`--${name} takes an HTTP status code, not '${value}'`);
  return code;
};

const retryAfter = (value: string | undefined): string | undefined => {
  if (value !== undefined && value !== 'date' && value !== 'none' && !/^\d+$/.test(value)) {
    throw new Error(`--retry-after takes seconds, 'date' or 'none', not '${value}'`);
  }
  return value;
};

const malformed = (value: string | undefined): MalformedKind | undefined => {
  if (value !== undefined && !MALFORMED_KINDS.includes(value as MalformedKind)) throw new Error(`--malformed takes one of ${MALFORMED_KINDS.join(', ')}`);
  return value as MalformedKind | undefined;
};

/** --today as UTC midnight (ms); the real today when absent. */
function day(value: string | undefined): number {
  if (value === undefined) return Math.floor(Date.now() / 86_400_000) * 86_400_000;
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN;
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) throw new Error(`--today takes a date, YYYY-MM-DD: got ${JSON.stringify(value)}`);
  return ms;
}

/** The sandbox options from the command line, or 'help'; throws on a bad flag. */
function options(argv: string[]): (SandboxOptions & { outliveParent: boolean }) | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' }, host: { type: 'string' }, size: { type: 'string' }, seed: { type: 'string' }, today: { type: 'string' },
      cache: { type: 'boolean' }, log: { type: 'string' }, latency: { type: 'string' },
      'rate-limit-every': { type: 'string' }, 'retry-after': { type: 'string' },
      'error-every': { type: 'string' }, 'error-status': { type: 'string' }, 'drop-every': { type: 'string' }, 'cut-every': { type: 'string' },
      'stall-every': { type: 'string' }, 'stall-ms': { type: 'string' },
      'malformed-every': { type: 'string' }, malformed: { type: 'string' },
      'fail-after': { type: 'string' }, 'fail-status': { type: 'string' },
      'repeat-overlap': { type: 'boolean' }, 'insert-per-request': { type: 'string' },
      'results-key': { type: 'string' }, 'cursor-cycle-at': { type: 'string' },
      'trickle-ms': { type: 'string' }, 'trickle-bytes': { type: 'string' }, 'exotic-fields': { type: 'boolean' },
      'drift-after': { type: 'string' }, missort: { type: 'boolean' }, 'outlive-parent': { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const faults: Faults = {
    latencyMs: int('latency', values.latency),
    rateLimitEvery: int('rate-limit-every', values['rate-limit-every']),
    retryAfter: retryAfter(values['retry-after']),
    errorEvery: int('error-every', values['error-every']),
    errorStatus: status('error-status', values['error-status']),
    dropEvery: int('drop-every', values['drop-every']),
    cutEvery: int('cut-every', values['cut-every']),
    stallEvery: int('stall-every', values['stall-every']),
    stallMs: int('stall-ms', values['stall-ms']),
    malformedEvery: int('malformed-every', values['malformed-every']),
    malformed: malformed(values.malformed),
    failAfter: int('fail-after', values['fail-after']),
    failStatus: status('fail-status', values['fail-status']),
    repeatOverlap: values['repeat-overlap'],
    insertPerRequest: int('insert-per-request', values['insert-per-request']),
    resultsKey: values['results-key'],
    cursorCycleAt: int('cursor-cycle-at', values['cursor-cycle-at']),
    trickleMs: int('trickle-ms', values['trickle-ms']),
    trickleBytes: positive('trickle-bytes', values['trickle-bytes']),
    exoticFields: values['exotic-fields'],
    driftAfter: int('drift-after', values['drift-after']),
    missort: values.missort,
  };
  return {
    port: int('port', values.port),
    host: values.host,
    size: int('size', values.size),
    seed: int('seed', values.seed),
    today: day(values.today),
    faults,
    logFile: values.log,
    cache: values.cache,
    outliveParent: values['outlive-parent'] ?? false,
  };
}

/**
 * Calls `stop` once the process that started the sandbox is gone (its parent
 * pid changes when it is re-parented). npx runs a bin as npm → sh → node and
 * forwards no SIGTERM, so \`kill $!\` on \`npx tenders-sandbox &\` would
 * otherwise leave the sandbox serving with no one to stop it.
 */
function stopWithParent(stop: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop();
  }, 200);
  timer.unref();
}

export async function main(argv: string[]): Promise<void> {
  let opts: ReturnType<typeof options>;
  try {
    opts = options(argv);
  } catch (err) {
    process.stderr.write(`tenders-sandbox: ${(err as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  if (opts === 'help') {
    process.stdout.write(HELP);
    return;
  }

  const started = performance.now();
  let sandbox: Sandbox;
  try {
    sandbox = await startSandbox(opts);
  } catch (err) {
    process.stderr.write(`tenders-sandbox: cannot start: ${(err as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  const stop = () => {
    void sandbox.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (!opts.outliveParent) stopWithParent(stop);
  // The URL is the only line on stdout: scripts wait for it, then may signal at once.
  process.stdout.write(`${sandbox.url}\n`);
  const ms = Math.round(performance.now() - started);
  const today = new Date(opts.today!).toISOString().slice(0, 10);
  process.stderr.write(`tenders-sandbox: ${opts.size ?? 5000} tenders (seed ${opts.seed ?? 1}, as of ${today}) at ${sandbox.url}, ready in ${ms} ms\n`);
}
