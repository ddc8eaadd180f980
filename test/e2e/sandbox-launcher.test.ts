import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Whether something accepts connections at `url`'s port now. */
function accepts(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

describe('a sandbox started through npx', () => {
  // npx runs it as npm → sh → node and forwards no SIGTERM: `kill $!` reaches npm alone.
  it('stops when its launcher is killed, as `kill $!` on `npx tenders-sandbox &` does', async () => {
    const npx = spawn('npx', ['tenders-sandbox', '--port', '0', '--size', '10'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    // The pipe ends when its last writer, the sandbox itself, has exited.
    const ended = new Promise((resolve) => npx.stdout.once('end', resolve));
    const url = await new Promise<string>((resolve) => createInterface({ input: npx.stdout }).once('line', resolve));
    expect(await accepts(url)).toBe(true);
    npx.kill('SIGTERM');
    await ended;
    expect(await accepts(url)).toBe(false);
  });
});
