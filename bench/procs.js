// Child processes for the bench: sandboxes, timed runs, peak-RSS runs. Every child is
// registered so that run.js can stop them all on exit, on errors and on signals.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const children = new Set();

function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** SIGTERM every child still running (sandboxes included). */
export function stopAll() {
  for (const child of children) child.kill('SIGTERM');
}

/**
 * The bench's environment plus `env`, without proxy variables (loopback must stay direct)
 * and without NODE_EXTRA_CA_CERTS: a machine that sets it (this one names the system's 144
 * certificates) makes every Node process parse them at start, 40 ms that a user's Node does
 * not spend and that would flatter every start-up ratio.
 */
function childEnv(env) {
  const out = { ...process.env, ...env };
  for (const key of Object.keys(out)) if (/^(https?|all)_proxy$/i.test(key) || key === 'NODE_EXTRA_CA_CERTS') delete out[key];
  return out;
}

/** Resolves to [exit code, signal]; rejects when the command could not be started. */
const exited = (child) =>
  new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve([code, signal]));
  });

/**
 * Starts `node bin/tenders-sandbox.js` and resolves when it has printed its URL. With
 * `--cache` the server answers from memoised bodies so it is never the bottleneck; a
 * sandbox that does not accept it is started again without, and `cache` says so.
 * `extra`: more sandbox flags (`--latency 50`).
 */
export async function startSandbox(bin, size, { cache = true, extra = [] } = {}) {
  const args = [bin, '--port', '0', '--size', String(size), '--seed', '1', ...(cache ? ['--cache'] : []), ...extra];
  const server = await startServer(process.execPath, args).catch((err) => {
    if (cache && err.exitedEarly) return undefined; // maybe --cache is unknown: try without
    throw err;
  });
  if (server === undefined) return startSandbox(bin, size, { cache: false, extra });
  return { ...server, cache };
}

/**
 * Starts a server that prints its URL as its first line on stdout (the sandbox, `tenders
 * serve`, bench/ceiling.js) and resolves to `{ url, pid, stop }` once it has.
 */
export async function startServer(cmd, args, env = {}) {
  const child = track(spawn(cmd, args, { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] }));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const url = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(Object.assign(new Error(`${args.find((a) => !a.startsWith('-')) ?? cmd} exited with ${code}: ${stderr.trim()}`), { exitedEarly: true })));
    createInterface({ input: child.stdout }).once('line', resolve);
  });
  if (!/^https?:\/\//.test(url)) throw new Error(`${cmd} printed ${JSON.stringify(url)}, not its URL`);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const done = exited(child);
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await done;
    clearTimeout(timer);
  };
  return { url, pid: child.pid, stop };
}

/** The peak resident memory of a running process so far (its VmHWM), in MB. */
export const processPeakMb = (pid) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

/**
 * Runs a command with stdout to the file `out` (default /dev/null, so the pipe costs
 * nothing) and resolves to its wall time in seconds, spawn to exit. Rejects on a
 * non-zero exit, with its stderr.
 */
export async function timed(cmd, args, env, out = '/dev/null') {
  const fd = openSync(out, 'w');
  try {
    const started = process.hrtime.bigint();
    const child = track(spawn(cmd, args, { env: childEnv(env), stdio: ['ignore', fd, 'pipe'] }));
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const [code, signal] = await exited(child);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (code !== 0) throw new Error(`${[cmd, ...args].join(' ')} exited ${code ?? signal}: ${stderr.trim()}`);
    return seconds;
  } finally {
    closeSync(fd);
  }
}

// GNU time's %M is the peak RSS in KiB, read by the kernel at exit: exact. Probe it,
// since a BusyBox `time` has no -f.
const gnuTime = existsSync('/usr/bin/time') && spawnSync('/usr/bin/time', ['-f', '%M', 'true'], { encoding: 'utf8' }).stderr?.trim().match(/^\d+$/);
export const rssMethod = gnuTime ? '/usr/bin/time -f %M' : '/proc/<pid>/status VmHWM, polled every 5 ms';

/** Peak resident memory of a command in MB (2^20 bytes), stdout to /dev/null. */
export async function peakRssMb(cmd, args, env) {
  const opts = { env: childEnv(env), stdio: ['ignore', 'ignore', 'pipe'] };
  if (gnuTime) {
    const child = track(spawn('/usr/bin/time', ['-f', '%M', cmd, ...args], opts));
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const [code] = await exited(child);
    if (code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${code}: ${stderr.trim()}`);
    return Number(stderr.trim().split('\n').at(-1)) / 1024;
  }
  // VmHWM is itself a high-water mark, so the last reading before exit is the peak
  // up to the final few milliseconds, which only tear down.
  const child = track(spawn(cmd, args, opts));
  let peak = 0;
  const poll = setInterval(() => {
    try {
      const kb = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
      if (kb) peak = Math.max(peak, Number(kb) / 1024);
    } catch {} // gone between the timer and the read
  }, 5);
  const [code] = await exited(child).finally(() => clearInterval(poll));
  if (code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${code}`);
  return peak;
}

export const hasCommand = (name) => spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
