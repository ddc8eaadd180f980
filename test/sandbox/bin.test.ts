import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { post, TENDERS } from './http.js';

// Runs the built bin: `npm test` builds first (pretest).
const BIN = 'bin/tenders-sandbox.js';

function run(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  const exit = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, exit };
}

describe('tenders-sandbox bin', () => {
  it('prints its URL first and only, serves, logs each request, and stops on SIGTERM', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'sandbox-log-')), 'requests.ndjson');
    const { child, exit } = run(['--size', '100', '--seed', '3', '--error-every', '2', '--log', log]);
    const url = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await post(url, TENDERS, { limit: 3 })).json().page.total).toEqual({ count: 100, capped: false });
    expect((await post(url, TENDERS, {})).status).toBe(503);
    child.kill('SIGTERM');
    const { code, stdout, stderr } = await exit;
    expect(code).toBe(0);
    expect(stdout).toBe(`${url}\n`);
    expect(stderr).toMatch(/^tenders-sandbox: 100 tenders \(seed 3\) at http/);
    const lines = readFileSync(log, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as unknown);
    expect(lines).toEqual([
      { n: 1, method: 'POST', path: TENDERS, body: { limit: 3 }, status: 200 },
      { n: 2, method: 'POST', path: TENDERS, body: {}, status: 503, fault: 'error' },
    ]);
  });

  it('stops on SIGINT too', async () => {
    const { child, exit } = run(['--size', '10']);
    await new Promise((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
    child.kill('SIGINT');
    expect((await exit).code).toBe(0);
  });

  it.each([
    [['--size', 'many']],
    [['--colour']],
    [['extra']],
    [['--malformed', 'weird']],
    [['--retry-after', 'soon']],
    [['--error-status', '42']],
  ])('refuses %j with exit 2 and a message on stderr', async (args) => {
    const { code, stdout, stderr } = await run(args).exit;
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^tenders-sandbox: /);
  });

  it('says why it cannot start, with exit 1', async () => {
    const { code, stderr } = await run(['--size', '1', '--log', '/nonexistent/dir/log']).exit;
    expect(code).toBe(1);
    expect(stderr).toMatch(/^tenders-sandbox: cannot start: /);
  });

  it('prints help with -h', async () => {
    const { code, stdout } = await run(['-h']).exit;
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: tenders-sandbox/);
    expect(stdout).toMatch(/--rate-limit-every N/);
  });
});
