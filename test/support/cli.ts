import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { testEnv, testSignal } from './test-context.js';

export const BIN = fileURLToPath(new URL('../../bin/tenders.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Called once the process is spawned, e.g. to send it a signal later. */
  onSpawn?: (child: ChildProcess) => void;
  /** Run as this user (the tests run as root, for whom every directory is writable). */
  uid?: number;
  gid?: number;
  /** Where stdout goes: captured (default), or a file descriptor the test opened. */
  stdout?: number | 'pipe';
}

/**
 * The environment of a user with no proxy and no colour, pointed at `baseUrl`,
 * whose state and home are in this test's own directory (test-context.ts).
 */
export function cliEnv(baseUrl: string | undefined, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', TENDERS_BASE_URL: baseUrl };
  extra = { ...testEnv(), ...extra };
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy', 'TENDERS_BASE_URL']) {
    if (name !== 'TENDERS_BASE_URL' || baseUrl === undefined) delete env[name];
  }
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/** Runs the built CLI as a user would: a child process, stdout and stderr captured (not a terminal). */
export function runCli(args: string[], baseUrl: string | undefined, opts: CliOptions = {}): Promise<CliResult> {
  return runProcess(process.execPath, [BIN, ...args], { ...opts, env: cliEnv(baseUrl, opts.env) });
}

/** Runs a shell pipeline (`sh -c`), for `| head` and redirections. */
export function runShell(script: string, baseUrl: string, opts: CliOptions = {}): Promise<CliResult> {
  return runProcess('/bin/sh', ['-c', script], { ...opts, env: cliEnv(baseUrl, { ...opts.env, TENDERS: `${process.execPath} ${BIN}` }) });
}

/**
 * Spawns `file` and collects what it writes. When the test ends first (it
 * failed or timed out), the process and its children are killed and the
 * promise rejects, so nothing of that test goes on into the next one.
 */
export function runProcess(file: string, args: string[], opts: CliOptions & { env: NodeJS.ProcessEnv }): Promise<CliResult> {
  const signal = testSignal();
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    // Its own process group, so that the end of the test reaches a shell's children too.
    const child = spawn(file, args, { env: opts.env, cwd: opts.cwd, uid: opts.uid, gid: opts.gid, detached: true, stdio: ['ignore', opts.stdout ?? 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const end = () => {
      killGroup(child);
      reject(new Error(`${String((signal!.reason as Error).message)} while ${file} ${args.join(' ')} ran; its stderr so far:\n${stderr}`));
    };
    signal?.addEventListener('abort', end, { once: true });
    child.on('error', reject);
    child.on('close', (code, exitSignal) => {
      signal?.removeEventListener('abort', end);
      resolve({ code, signal: exitSignal, stdout, stderr });
    });
    opts.onSpawn?.(child);
  });
}

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

export function ndjson(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);
}
