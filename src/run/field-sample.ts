import { readPage } from '../api/page.js';
import { fieldsOf, renderFields, type FieldListFormat } from '../output/field-list.js';
import { createReporter } from '../output/terminal/reporter.js';
import { printTo } from '../files/sink.js';
import type { ConnectionPlan, QueryPlan, RunDeps } from './plan.js';
import { stringifyExact } from '../model/exact-json.js';

export interface FieldsPlan {
  connection: ConnectionPlan;
  /** The search whose first page is the sample. */
  query: QueryPlan;
  format: FieldListFormat;
}

/** Fetches one page and prints the dot paths its results have, each with an example value. */
export async function runFields(plan: FieldsPlan, { io, client, signal }: RunDeps): Promise<void> {
  const { query } = plan;
  const say = createReporter(io, plan.connection);
  const { status, json } = await client.post(query.path, stringifyExact(query.body), signal);
  const { items } = readPage(json, status, query.path);
  if (items.length === 0) {
    say.warn(`no ${query.noun} match these filters, so there are no fields to show: try fewer filters`);
    return;
  }
  const fields = fieldsOf(items);
  const text = await renderFields(fields, plan.format, { width: io.stdoutWidth(), color: io.colorStdout(), terminal: io.stdoutIsTTY });
  await printTo(io.stdout, signal, text);
  const some = fields.slice(0, 3).map((f) => f.path).join(',');
  say.hint(`${fields.length} fields in the first ${items.length} ${query.noun}; choose some with --columns ${some}`);
}
