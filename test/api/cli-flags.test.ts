import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { execute } from '../../src/cli.js';
import type { ConnectionPlan } from '../../src/run/plan.js';
import { FakeClient, pagedTenders, type Responder } from '../support/fake-client.js';
import { memoryIO } from '../support/io.js';
import { JumpingClock } from '../support/manual-clock.js';

const BASE = 'http://service.test';
const PATH = '/api/v1/tenders/search';

/**
 * Runs the CLI in-process with undici's client over a MockAgent whose answers
 * come from `respond` (a 429 for `limited(n)` requests); the plan it was given.
 */
async function run(argv: string[], respond: Responder, limited: (n: number) => Record<string, string> | undefined = () => undefined) {
  const t = memoryIO({ env: { TENDERS_BASE_URL: BASE } });
  const mock = new MockAgent();
  mock.disableNetConnect();
  let n = 0;
  mock
    .get(BASE)
    .intercept({ path: PATH, method: 'POST' })
    .reply(({ body }) => {
      const headers = limited(++n);
      if (headers) return { statusCode: 429, data: '{"message":"slow down"}', responseOptions: { headers } };
      // MockAgent answers synchronously: so do the responders used here.
      const answer = respond({ path: PATH, body: JSON.parse(String(body)) as Record<string, unknown> }, n) as { status?: number; json: unknown };
      return { statusCode: answer.status ?? 200, data: JSON.stringify(answer.json) };
    })
    .persist();
  let connection: ConnectionPlan | undefined;
  const code = await execute(argv, t.io, {
    createClient: async (plan, log) => {
      connection = plan;
      return new ApiClient({ ...plan, env: {}, log, dispatcher: mock, clock: new JumpingClock() });
    },
  });
  return { code, stdout: t.stdout.text, stderr: t.stderr.text, connection, requests: n };
}

describe('--rate and --max-wait', () => {
  it('default: no rate limit, two minutes of Retry-After at most', async () => {
    const r = await run(['count'], pagedTenders(3));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.connection).toMatchObject({ rate: undefined, maxWaitMs: 120_000 });
  });

  it('take decimals for the rate and whole seconds for the wait, before or after the command', async () => {
    const r = await run(['--rate', '0.5', 'count', '--max-wait', '600'], pagedTenders(3));
    expect(r.code).toBe(0);
    expect(r.connection).toMatchObject({ rate: 0.5, maxWaitMs: 600_000 });
    expect((await run(['count', '--rate', '.25'], pagedTenders(3))).connection).toMatchObject({ rate: 0.25 });
  });

  it.each([
    [['--rate', '0'], "tenders: --rate takes requests per second, a number above 0 and at most 10000 such as 2 or 0.5, not '0'\n"],
    [['--rate', 'fast'], "tenders: --rate takes requests per second, a number above 0 and at most 10000 such as 2 or 0.5, not 'fast'\n"],
    [['--rate', '-1'], "tenders: --rate takes requests per second, a number above 0 and at most 10000 such as 2 or 0.5, not '-1'\n"],
    [['--rate', '1e3'], "tenders: --rate takes requests per second, a number above 0 and at most 10000 such as 2 or 0.5, not '1e3'\n"],
    [['--max-wait', '1.5'], "tenders: --max-wait takes a whole number from 0 to 86400, not '1.5'\n"],
    [['--max-wait', 'never'], "tenders: --max-wait takes a whole number from 0 to 86400, not 'never'\n"],
  ])('refuses %j before any request (exit 2)', async (flags, message) => {
    const r = await run(['count', ...flags], pagedTenders(3));
    expect(r).toMatchObject({ code: 2, stderr: message, requests: 0 });
  });

  it('are in the help', async () => {
    const t = memoryIO();
    await execute(['--help'], t.io, { createClient: async () => new FakeClient(pagedTenders(1)) });
    const help = t.stdout.text.replace(/\s+/g, ' ');
    expect(help).toContain('--max-wait <seconds> stop instead of waiting out a longer Retry-After (default: 120)');
    expect(help).toContain('--rate <r> at most R requests per second across the run (decimals allowed, e.g. 0.5)');
    expect(help).toContain('--timeout <ms> time limit of each request attempt, to the last byte, in milliseconds (default: 30000)');
  });

  it('--verbose shows each change of pace', async () => {
    const r = await run(['export', '-f', 'ndjson', '-n', '10', '--rate', '4', '-v'], pagedTenders(50), (n) => (n === 2 ? {} : undefined));
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('* rate: 429 without Retry-After: 4.0 → 2.0 requests/s\n');
    expect(r.stderr).toContain('* rate: recovering: 2.0 → 2.1 requests/s\n');
  });
});

describe('a Retry-After beyond --max-wait in an export', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tenders-maxwait-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('ends at once with exit 1 and when to come back; -o keeps the export resumable', async () => {
    const file = join(dir, 'open.csv');
    const args = ['export', '-n', '25', '-o', file];
    const stopped = await run(args, pagedTenders(100), (n) => (n === 3 ? { 'retry-after': '100000' } : undefined));
    expect(stopped.code).toBe(1);
    expect(stopped.requests).toBe(3);
    expect(stopped.stderr).toMatch(
      /^tenders: the service answered 429 to POST \/api\/v1\/tenders\/search and accepts requests again at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, in 100000 s: longer than --max-wait 120 s, so the run stops here \(run it again after that time, or raise --max-wait\); the 50 tenders written so far are kept in .*open\.csv\.partial: run the same command with --resume to continue\n$/,
    );
    expect((await readdir(dir)).sort()).toEqual(['open.csv.partial', 'open.csv.resume.json']);

    const resumed = await run([...args, '--resume'], pagedTenders(100));
    expect(resumed).toMatchObject({ code: 0, requests: 2 });
    const clean = await run(['export', '-n', '25'], pagedTenders(100));
    expect(await readFile(file, 'utf8')).toBe(clean.stdout);
  });

  it('a shorter one is waited out and the export completes', async () => {
    const r = await run(['export', '-n', '25', '-f', 'ndjson', '-v'], pagedTenders(100), (n) => (n === 2 ? { 'retry-after': '90' } : undefined));
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(100);
    expect(r.stderr).toMatch(/retry 1\/5 in 90\d\d\d ms \(Retry-After 90 s\)/);
  });
});
