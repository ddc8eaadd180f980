import { access, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../support/sandbox.js';
import { testDir } from '../support/test-context.js';
import { runCli } from '../support/cli.js';
import { whenDir } from '../support/dir-events.js';

const sb = useSandbox({ size: 3000, seed: 21 });

const exists = (path: string) => access(path).then(() => true, () => false);

/** Starts an export into `file`, stops it with `signal` once some pages are committed. */
async function interruptedExport(args: string[], file: string, signal: NodeJS.Signals) {
  sb.setFaults({ latencyMs: 40 }); // ~30 pages: a window wide enough to stop it mid-way
  // Each checkpoint renames a new state file into place: a change of the directory.
  let stop = () => {};
  const r = await runCli([...args, '-o', file], sb.url, {
    onSpawn: (child) => {
      const committed = async () => (JSON.parse(await readFile(`${file}.resume.json`, 'utf8')) as { pages: number }).pages >= 3;
      stop = whenDir(testDir(), committed, () => child.kill(signal));
    },
  });
  stop();
  sb.setFaults({});
  return r;
}

describe.each([
  ['csv', 'SIGINT', 130],
  ['json', 'SIGTERM', 143],
  ['ndjson', 'SIGINT', 130],
] as const)('export -f %s stopped by %s, then --resume', (format, signal, code) => {
  it('leaves no FILE, then finishes byte-identical to a clean run without re-fetching', async () => {
    const args = ['export', '-f', format, '-s', 'open,closed,awarded'];
    const clean = join(testDir(), `clean.${format}`);
    const file = join(testDir(), `resumed-${signal}.${format}`);
    const start = sb.requests.length;
    expect((await runCli([...args, '-o', clean], sb.url)).code).toBe(0);
    const cleanRequests = sb.requests.length - start;

    const stopped = await interruptedExport(args, file, signal);
    expect(stopped.code).toBe(code);
    expect(stopped.stderr).toMatch(new RegExp(`^tenders: interrupted by ${signal}; the [\\d,]+ tenders written so far are kept in .*\\.partial: run the same command with --resume to continue\\n$`));
    expect(await exists(file)).toBe(false);
    const state = JSON.parse(await readFile(`${file}.resume.json`, 'utf8')) as { pages: number; nextCursor: string };
    expect(state.nextCursor).toEqual(expect.any(String));

    const before = sb.requests.length;
    const resumed = await runCli([...args, '-o', file, '--resume'], sb.url);
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(await readFile(file)).toEqual(await readFile(clean));
    const requests = sb.requests.slice(before);
    expect((requests[0]!.body as { cursor?: string }).cursor).toBe(state.nextCursor);
    expect(requests.length).toBe(cleanRequests - state.pages);
    expect(await exists(`${file}.resume.json`)).toBe(false);
    expect(await exists(`${file}.partial`)).toBe(false);
  });
});

describe('resume in other situations', () => {
  it('a run that failed after its retries keeps its state and says how to continue', async () => {
    const file = join(testDir(), 'failed.csv');
    sb.setFaults({ failAfter: 4, failStatus: 503 });
    const failed = await runCli(['export', '-o', file, '--retries', '1'], sb.url);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/gave up after 1 retry\); the [\d,]+ tenders written so far are kept in .*failed\.csv\.partial: run the same command with --resume to continue\n$/);
    sb.setFaults({});
    const resumed = await runCli(['export', '-o', file, '--resume'], sb.url);
    expect(resumed.code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe((await runCli(['export'], sb.url)).stdout);
  });

  it('a different query starts afresh and says so', async () => {
    const file = join(testDir(), 'other.csv');
    sb.setFaults({ failAfter: 3 });
    await runCli(['export', '-o', file, '--retries', '0', '-c', 'DEU,FRA,ITA,ESP,POL'], sb.url);
    sb.setFaults({});
    const before = sb.requests.length;
    const r = await runCli(['export', '-o', file, '--resume', '-c', 'DEU'], sb.url);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^tenders: warning: the interrupted export of .*other\.csv was of a different query or format; starting afresh\n$/);
    expect((sb.requests[before]!.body as { cursor?: string }).cursor).toBeUndefined();
    expect(await readFile(file, 'utf8')).toBe((await runCli(['export', '-c', 'DEU'], sb.url)).stdout);
  });

  it('no saved state starts afresh and says so', async () => {
    const file = join(testDir(), 'nothing.csv');
    const r = await runCli(['export', '-o', file, '--resume', '-c', 'DEU'], sb.url);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/no interrupted export of .*nothing\.csv to resume; starting afresh/);
    expect(await readdir(testDir())).toContain('nothing.csv');
  });
});
