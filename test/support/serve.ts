import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { expect } from 'vitest';
import { BIN, cliEnv } from './cli.js';
import { testSignal } from './test-context.js';

export interface Replica {
  url: string;
  child: ChildProcess;
  /** What the server wrote on stderr so far (the access log). */
  stderr(): string;
  /** A signal (SIGTERM by default), then its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawns `tenders serve ARGS` and resolves once it printed its base URL; killed when the test ends first. */
export async function spawnServe(args: string[], env: Record<string, string | undefined> = {}): Promise<Replica> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { env: cliEnv(undefined, env), stdio: ['ignore', 'pipe', 'pipe'] });
  testSignal()?.addEventListener('abort', () => child.kill('SIGKILL'), { once: true });
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = once(child, 'exit');
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`tenders serve exited ${code} before it was ready: ${err}`)));
  });
  return {
    url,
    child,
    stderr: () => err,
    stop: async (signal = 'SIGTERM') => {
      child.kill(signal);
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}

/** `body` with `tenders serve ARGS --listen 127.0.0.1:0` running; then stopped, which must exit 0. Resolves to its stderr. */
export async function withReplica(args: string[], body: (replica: Replica) => Promise<void>): Promise<string> {
  const replica = await spawnServe(['--listen', '127.0.0.1:0', ...args]);
  try {
    await body(replica);
  } finally {
    expect(await replica.stop()).toBe(0);
  }
  return replica.stderr();
}

/** A POST of `body` (JSON unless a string) to the search path `path`. */
export async function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string; headers: Headers }> {
  const r = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: r.status, text: await r.text(), headers: r.headers };
}
