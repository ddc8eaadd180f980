import { setMaxListeners } from 'node:events';
import type { Client } from '../api/client.js';
import { BadResponseError } from '../api/errors.js';
import { readPage } from '../api/page.js';
import { sumTotals, type Total } from '../model/total.js';
import { countFormat, renderCounts, type CountFormat, type CountRow } from '../output/counts.js';
import { refuseOnTerminal } from '../output/format-registry.js';
import type { Reporter } from '../output/terminal/reporter.js';
import { printTo } from '../files/sink.js';
import { DIMENSIONS, splitBy, type Dimension, type Partition } from './partition.js';
import type { FirstRequest } from '../model/request.js';
import { stringifyExact } from '../model/exact-json.js';
import type { QueryPlan, RunDeps } from './plan.js';

/** Prints the number of matches the first page reports (`page.total`), as a count format writes one total. */
export async function runCount(query: QueryPlan, write: (total: Total) => string, { io, client, signal }: RunDeps): Promise<void> {
  const total = await countOf(client, query.path, query.body, signal);
  await printTo(io.stdout, signal, `${write(total)}\n`);
}

/**
 * `count --by`: one first-page request per partition, at most `parallel` at
 * once through the run's one client (its rate shared), then each count and
 * their sum. A capped partition is split further by the other dimension until
 * its parts are exact or cannot be split; what stays capped is a lower bound,
 * said on stderr. `matchesOnly` leaves out the partitions with no match (every
 * country counted). A failed request cancels the others.
 */
export async function runCountBy(
  query: QueryPlan,
  by: Dimension,
  partitions: Partition[],
  opts: { format: CountFormat; parallel: number; matchesOnly: boolean },
  { io, client, signal }: RunDeps,
  say: Reporter,
): Promise<void> {
  refuseOnTerminal(countFormat(opts.format), io.stdoutIsTTY);
  const requests = new AbortController();
  setMaxListeners(opts.parallel + 1, requests.signal); // one request per slot listens: not a leak
  const onAbort = () => requests.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const slot = slots(opts.parallel, requests.signal);
  const count = (body: Record<string, unknown>) =>
    slot(() =>
      countOf(client, query.path, body, requests.signal).catch((err: unknown) => {
        requests.abort(err); // the first failure is the run's: its siblings stop, and no other starts
        throw err;
      }),
    );
  const others = (Object.keys(DIMENSIONS) as Dimension[]).filter((dim) => dim !== by);
  let rows: CountRow[];
  try {
    rows = await Promise.all(partitions.map(async (p) => ({ value: p.value!, ...(await exactCount(p.body, await count(p.body), others, count)) })));
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (opts.matchesOnly) rows = rows.filter((row) => row.count > 0);
  const bounds = rows.filter((row) => row.capped).map((row) => row.value);
  if (bounds.length > 0) {
    say.warn(
      `${bounds.join(', ')}: ${bounds.length === 1 ? 'its count is a lower bound' : 'their counts are lower bounds'} ` +
        `(N+): the service stops counting at 10,000 and splitting by ${others.join(' and ')} did not bring every part under it`,
    );
  }
  const table = { width: io.stdoutWidth() ?? 80, bars: io.stdoutIsTTY, color: io.colorStdout(), grouped: io.stdoutIsTTY, terminal: io.stdoutIsTTY };
  await printTo(io.stdout, signal, await renderCounts(by, rows, opts.format, table));
}

/**
 * A capped count made exact where it can be: the query split by the first of
 * `dims` that splits it, each part made exact in turn by the rest. Parts that
 * sum to less than the capped whole missed some tenders (a value outside the
 * known list): the whole's lower bound stands then.
 */
async function exactCount(body: Record<string, unknown>, total: Total, dims: Dimension[], count: (body: Record<string, unknown>) => Promise<Total>): Promise<Total> {
  if (!total.capped) return total;
  for (const dim of dims) {
    const parts = splitBy(body, dim);
    if (parts.length === 0) continue;
    const rest = dims.filter((other) => other !== dim);
    const sum = sumTotals(await Promise.all(parts.map(async (p) => exactCount(p.body, await count(p.body), rest, count))));
    return sum.count < total.count ? total : sum;
  }
  return total;
}

/** At most `n` tasks at once; a task not yet started when `signal` aborts rejects with its reason. */
function slots(n: number, signal: AbortSignal): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      signal.throwIfAborted();
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/** The request of a count: the query's first page of one result, the cheapest page that still carries the total. */
export function countRequest(path: string, body: Record<string, unknown>): FirstRequest {
  return { path, body: { ...body, limit: 1 } };
}

/** The total of a query's first page. */
async function countOf(client: Client, path: string, body: Record<string, unknown>, signal: AbortSignal): Promise<Total> {
  const request = countRequest(path, body);
  const { status, json } = await client.post(path, stringifyExact(request.body), signal);
  const total = readPage(json, status, path).total;
  if (!total) throw new BadResponseError(status, path, 'the first page has no "page.total"');
  return total;
}
