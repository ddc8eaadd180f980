// The bundled sandbox, a local copy synced from it and `tenders serve` over that copy, as
// child processes of the built CLI: what `npm run demo` and `npm run screenshots` show.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Starts `bin/NAME ARGS` and resolves once it printed its URL, its first line on stdout
 * (as tenders-sandbox and tenders serve do). stop() sends SIGTERM and waits for the exit.
 */
async function startChild(name, args) {
  const child = spawn(process.execPath, [join(root, 'bin', name), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  const url = await new Promise((resolve, reject) => {
    child.once('exit', (code, signal) => reject(new Error(`${name} exited (${code ?? signal}) before it was ready`)));
    createInterface({ input: child.stdout }).once('line', resolve);
  });
  return {
    url,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The sandbox of the demo: 5 000 tenders of seed 1, on a free port of loopback. */
export const startSandbox = () => startChild('tenders-sandbox.js', ['--port', '0', '--size', '5000', '--seed', '1']);

/** `tenders serve` over the copy DB, on a free port of loopback, without an access log. */
export const startServe = (db) => startChild('tenders.js', ['serve', '--db', db, '--listen', '127.0.0.1:0', '--quiet']);

/** Runs `tenders ARGS` against the service at URL, output on ours; throws unless it exits 0 (the error carries its status and signal). */
export function tenders(url, args) {
  const r = spawnSync(process.execPath, [join(root, 'bin/tenders.js'), ...args], { env: { ...process.env, TENDERS_BASE_URL: url }, stdio: 'inherit' });
  if (r.status !== 0) throw Object.assign(new Error(`tenders ${args[0]} exited with ${r.status ?? r.signal}`), { status: r.status, signal: r.signal });
}

/** Changes the sandbox's data (its mutation route, docs/sandbox.md): what a second sync then records as history. */
export async function mutate(url, changes) {
  const r = await fetch(`${url}/__sandbox/mutate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(changes) });
  if (!r.ok) throw new Error(`the sandbox's mutation route answered ${r.status}`);
  return r.json();
}
