import { join } from 'node:path';
import { parseJson } from '../../src/model/json-parse.js';
import { Store as Sandbox } from '../../src/sandbox/store.js';
import { openStore } from '../../src/store/open.js';
import type { RunReceipt } from '../../src/store/store.js';
import { testDir } from './test-context.js';

/** The sandbox's tenders as the online walk yields them (parsed from the JSON the service sends). */
export function sandboxDocs(sandbox: Sandbox): Record<string, unknown>[] {
  return [...sandbox.rows()].map((row) => parseJson(row.json) as Record<string, unknown>);
}

/**
 * A local copy filled through the store API, as a sync would fill it: one
 * complete run of the sync `name` holding `tenders`, in pages of 100. Runs
 * again on the same location record new / changed / gone.
 */
export async function syncInto(location: string, name: string, tenders: readonly Record<string, unknown>[]): Promise<RunReceipt> {
  const store = await openStore(location, { mode: 'write' });
  try {
    const run = await store.beginRun({ sync: { name, query: {}, service: 'http://sandbox.test/api' }, mode: 'full' });
    for (let i = 0; i < tenders.length; i += 100) await run.add(tenders.slice(i, i + 100));
    return await run.commit({ complete: true, pages: Math.ceil(tenders.length / 100), requests: Math.ceil(tenders.length / 100) });
  } finally {
    await store.close();
  }
}

/** A fresh copy in this test's directory holding `size` sandbox tenders under the sync `all`. */
export async function filledCopy(size = 120, seed = 7): Promise<{ db: string; sandbox: Sandbox; docs: Record<string, unknown>[] }> {
  const sandbox = new Sandbox(size, seed);
  const docs = sandboxDocs(sandbox);
  const db = join(testDir(), 'tenders.db');
  await syncInto(db, 'all', docs);
  return { db, sandbox, docs };
}
