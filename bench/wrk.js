// The load generator of the serve rows: Debian's wrk (a C program, so the client does not
// compete with the server for V8's time as a Node load generator would), with a Lua script
// that sends the request's method, headers and body. Its --latency distribution gives the p99.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hasCommand } from './procs.js';

export const hasWrk = () => hasCommand('wrk');

const TIMEOUT = '10s';
const UNIT_MS = { us: 0.001, ms: 1, s: 1000, m: 60_000 };
const msOf = (text) => {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!m) throw new Error(`wrk: a latency of ${text}`);
  return Number(m[1]) * UNIT_MS[m[2]];
};

/** What one wrk run printed: requests per second, p50 and p99 in ms, requests, and the answers that were not 2xx or 3xx. */
export function parseWrk(text) {
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(text);
  const p = (q) => [...text.matchAll(/^\s+(\S+)%\s+(\S+)\s*$/gm)].find((m) => m[1] === q);
  const p50 = p('50');
  const p99 = p('99');
  const requests = /^\s+(\d+) requests in/m.exec(text);
  if (!rps || !p50 || !p99 || !requests) throw new Error(`wrk printed no latency distribution:\n${text.trim()}`);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text)?.slice(1).map(Number) ?? [0, 0, 0, 0];
  return { rps: Number(rps[1]), p50Ms: msOf(p50[2]), p99Ms: msOf(p99[2]), requests: Number(requests[1]), non2xx, errors: socket[0] + socket[1] + socket[2], timeouts: socket[3] };
}

/**
 * One wrk run of `seconds` at `connections` against `url` with the request `{ method, body }`
 * (a JSON body); rejects when any answer was not 2xx, or a socket failed, so a fast error
 * page never passes for a fast answer. A request slower than TIMEOUT is counted in `timeouts`
 * (wrk leaves it out of its distribution, so a p99 with timeouts is at least TIMEOUT).
 */
export async function wrk(url, { method = 'GET', body, connections = 16, seconds = 5, dir }) {
  const script = join(dir, `wrk-${process.pid}.lua`);
  const lines = [`wrk.method = "${method}"`];
  if (body !== undefined) lines.push('wrk.headers["Content-Type"] = "application/json"', `wrk.body = [==[${body}]==]`);
  writeFileSync(script, `${lines.join('\n')}\n`);
  const args = ['--timeout', TIMEOUT, '-t', '2', '-c', String(connections), '-d', `${seconds}s`, '--latency', '-s', script, url];
  const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise((resolve, reject) => child.once('error', reject).once('exit', resolve));
  if (code !== 0) throw new Error(`wrk ${args.join(' ')} exited ${code}: ${out.trim()}`);
  const result = parseWrk(out);
  if (result.non2xx || result.errors) throw new Error(`wrk against ${url}: ${result.non2xx} answers not 2xx, ${result.errors} socket errors`);
  if (result.timeouts) result.p99Ms = Math.max(result.p99Ms, msOf(TIMEOUT));
  return result;
}
