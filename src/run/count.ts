import { ApiClient } from '../api/client.js';
import { BadResponseError } from '../api/errors.js';
import { readPage } from '../api/page.js';
import { createReporter } from '../output/reporter.js';
import { OutputClosedError, StreamSink } from '../output/sink.js';
import type { ConnectionPlan, QueryPlan } from './plan.js';

/** Prints the number of matches the first page reports (`page.total`). */
export async function runCount(
  connection: ConnectionPlan,
  query: QueryPlan,
  json: boolean,
  signal: AbortSignal,
): Promise<void> {
  const say = createReporter(connection);
  const client = new ApiClient({ ...connection, log: connection.verbose ? say.debug : undefined });
  let total;
  try {
    // One result is the cheapest page that still carries the total.
    const { status, json: body } = await client.post(query.path, JSON.stringify({ ...query.body, limit: 1 }), signal);
    total = readPage(body, status, query.path).total;
    if (!total) throw new BadResponseError(status, query.path, 'the first page has no "page.total"');
  } finally {
    await client.close(signal.aborted);
  }
  const text = json ? JSON.stringify({ count: total.count, capped: total.capped }) : `${total.count}${total.capped ? '+' : ''}`;
  const out = new StreamSink(process.stdout, signal);
  try {
    await out.write(`${text}\n`);
    await out.finish();
  } catch (err) {
    if (!(err instanceof OutputClosedError)) throw err;
  }
}
