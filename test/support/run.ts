import { execute } from '../../src/cli.js';
import type { FileSystem } from '../../src/files/fs.js';
import { FakeClient, type Responder } from './fake-client.js';
import { memoryIO, type MemoryIOOptions } from './io.js';

export const BASE_ENV = { TENDERS_BASE_URL: 'http://service.test' };

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
  client: FakeClient;
}

/** Runs the CLI in-process over memory streams against a FakeClient answering with `respond`. */
export async function runInProcess(
  argv: string[],
  respond: Responder | FakeClient,
  opts: MemoryIOOptions & { signal?: AbortSignal; fs?: FileSystem } = {},
): Promise<InProcessResult> {
  const client = respond instanceof FakeClient ? respond : new FakeClient(respond);
  const t = memoryIO({ ...opts, env: { ...BASE_ENV, ...opts.env } });
  const code = await execute(argv, t.io, { signal: opts.signal, createClient: async () => client, fs: opts.fs });
  return { code, stdout: t.stdout.text, stderr: t.stderr.text, client };
}
