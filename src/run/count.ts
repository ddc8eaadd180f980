import { BadResponseError } from '../api/errors.js';
import { readPage } from '../api/page.js';
import { StreamOutput } from '../output/sink.js';
import type { QueryPlan, RunDeps } from './plan.js';

/** Prints the number of matches the first page reports (`page.total`). */
export async function runCount(query: QueryPlan, json: boolean, { io, client, signal }: RunDeps): Promise<void> {
  // One result is the cheapest page that still carries the total.
  const { status, json: body } = await client.post(query.path, JSON.stringify({ ...query.body, limit: 1 }), signal);
  const total = readPage(body, status, query.path).total;
  if (!total) throw new BadResponseError(status, query.path, 'the first page has no "page.total"');
  const text = json ? JSON.stringify({ count: total.count, capped: total.capped }) : `${total.count}${total.capped ? '+' : ''}`;
  const out = new StreamOutput(io.stdout, signal);
  await out.write(`${text}\n`);
  await out.finish();
}
