import { setMaxListeners } from 'node:events';
import type { Client } from '../api/client.js';
import { BadResponseError } from '../api/errors.js';
import { readPage } from '../api/page.js';
import type { Total } from '../model/total.js';
import type { CountFormat, CountRow } from '../output/counts.js';
import { formatDefinition, refuseOnTerminal } from '../output/format-registry.js';
import { printTo } from '../output/sink.js';
import type { Partition } from './partition.js';
import type { FirstRequest } from '../model/request.js';
import { stringifyExact } from '../model/exact-json.js';
import type { QueryPlan, RunDeps } from './plan.js';

/** Prints the number of matches the first page reports (`page.total`). */
export async function runCount(query: QueryPlan, json: boolean, { io, client, signal }: RunDeps): Promise<void> {
  const total = await countOf(client, query.path, query.body, signal);
  const text = json ? JSON.stringify({ count: total.count, capped: total.capped }) : `${total.count}${total.capped ? '+' : ''}`;
  await printTo(io.stdout, signal, `${text}\n`);
}

/**
 * `count --by`: one first-page request per partition, at most `parallel` at
 * once through the run's one client, then each count and their sum. Past the
 * service's 10 000 ceiling the sum stays exact while no partition is capped.
 */
export async function runCountBy(
  query: QueryPlan,
  by: string,
  partitions: Partition[],
  format: CountFormat,
  parallel: number,
  { io, client, signal }: RunDeps,
): Promise<void> {
  if (format !== 'text') refuseOnTerminal(formatDefinition(format), io.stdoutIsTTY);
  // `parallel` workers take the partitions in turn; after a failure none takes another.
  const rows: CountRow[] = new Array(partitions.length);
  const requests = new AbortController();
  setMaxListeners(parallel + 1, requests.signal); // one request per worker listens: not a leak
  const onAbort = () => requests.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < partitions.length) {
      const i = next++;
      const partition = partitions[i]!;
      try {
        rows[i] = { value: partition.value!, ...(await countOf(client, query.path, partition.body, requests.signal)) };
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(parallel, partitions.length) }, worker));
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  const { renderCounts } = await import('../output/counts.js');
  const table = { width: io.stdoutWidth() ?? 80, bars: io.stdoutIsTTY, color: io.colorStdout() };
  await printTo(io.stdout, signal, await renderCounts(by, rows, format, table));
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
