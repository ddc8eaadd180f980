import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { MUTATE, post, results, TENDERS } from './http.js';

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
    // As of today (UTC) unless told.
    expect(stderr).toMatch(new RegExp(`^tenders-sandbox: 100 tenders \\(seed 3, as of ${new Date().toISOString().slice(0, 10)}|${new Date(Date.now() - 60_000).toISOString().slice(0, 10)}\\) at http`));
    const lines = readFileSync(log, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { t: number });
    expect(lines).toEqual([
      { n: 1, t: expect.any(Number), method: 'POST', path: TENDERS, body: { limit: 3 }, status: 200 },
      { n: 2, t: expect.any(Number), method: 'POST', path: TENDERS, body: {}, status: 503, fault: 'error' },
    ]);
    // Arrival times in milliseconds since the epoch, in order.
    expect(lines[0]!.t).toBeGreaterThan(Date.parse('2020-01-01'));
    expect(lines[1]!.t).toBeGreaterThanOrEqual(lines[0]!.t);
  });

  it('takes the second-round fault flags and serves POST /__sandbox/mutate', async () => {
    const { child, exit } = run([
      '--size', '200', '--exotic-fields', '--missort', '--drift-after', '1', '--cursor-cycle-at', '3',
      '--rate-limit-every', '2', '--retry-after', 'none', '--trickle-ms', '1', '--trickle-bytes', '512',
    ]);
    const url = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
    const first = await post(url, TENDERS, { limit: 20, sortBy: 'estimatedValue' });
    expect(first.text).toContain('"bigRef":12345678901234567890');
    expect(first.text).toContain('"__proto__":{"polluted":true}');
    expect(first.text).not.toContain('"amendment"');
    const values = results(first.json()).map((t) => (t.estimatedValue as { amountEur: number }).amountEur);
    expect(values).not.toEqual([...values].sort((a, b) => b - a));
    const limited = await post(url, TENDERS, {});
    expect(limited.status).toBe(429);
    expect(limited.headers.has('retry-after')).toBe(false);
    const cursor = first.json().page.nextCursor!;
    const third = await post(url, TENDERS, { limit: 20, sortBy: 'estimatedValue', cursor });
    expect(third.json().page.nextCursor).toBe(cursor);
    expect(third.text).toContain('"amendment"');
    const mutated = await post(url, MUTATE, { insert: 2, update: 3, close: 1, remove: 1, seed: 9 });
    expect(mutated.status).toBe(200);
    expect(Object.values(JSON.parse(mutated.text) as Record<string, string[]>).map((ids) => ids.length)).toEqual([2, 3, 1, 1]);
    // The 4th service request (a 429): the mutate route is not counted, else it would be the 5th.
    expect((await post(url, TENDERS, { limit: 1 })).status).toBe(429);
    child.kill('SIGTERM');
    expect((await exit).code).toBe(0);
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
    [['--retry-after', 'never']],
    [['--cursor-cycle-at', 'x']],
    [['--trickle-bytes', '0']],
    [['--drift-after', '-1']],
    [['--missort', 'yes']],
    [['--today', '2026-02-30']],
    [['--today', 'tomorrow']],
  ])('refuses %j with exit 2 and a message on stderr', async (args) => {
    const { code, stdout, stderr } = await run(args).exit;
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^tenders-sandbox: /);
  });

  it('--today: the data as of that day, the same for the same --seed and --today; open tenders\' deadlines after it', async () => {
    const asOf = async (today: string) => {
      const { child, exit } = run(['--size', '300', '--seed', '5', '--today', today]);
      const url = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
      const tenders = results((await post(url, TENDERS, { limit: 100 })).json());
      const open = results((await post(url, TENDERS, { limit: 100, statuses: ['open'] })).json());
      child.kill('SIGTERM');
      await exit;
      return { tenders, open };
    };
    const [a, b, later] = [await asOf('2031-06-15'), await asOf('2031-06-15'), await asOf('2031-06-25')];
    expect(b).toEqual(a);
    const dates = (list: Record<string, unknown>[], key: string) => list.map((t) => t[key] as string | null);
    expect(dates(a.tenders, 'publicationDate')[0]! >= '2031-06-01').toBe(true);
    expect(dates(a.tenders, 'publicationDate').every((d) => d! <= '2031-06-15')).toBe(true);
    expect(dates(a.open, 'deadline').filter((d) => d !== null).every((d) => d! > '2031-06-15')).toBe(true);
    // Another day: the same tenders, ten days later.
    const shift = (d: string) => new Date(Date.parse(d) + 10 * 86_400_000).toISOString().slice(0, 10);
    expect(dates(later.tenders, 'publicationDate')).toEqual(dates(a.tenders, 'publicationDate').map((d) => shift(d!)));
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
