import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execute } from '../src/cli.js';
import { FakeClient, pagedTenders } from './support/fake-client.js';
import { memoryIO } from './support/io.js';

const BASE = { TENDERS_BASE_URL: 'http://service.test' };

function run(argv: string[], client: FakeClient, opts: Parameters<typeof memoryIO>[0] = {}) {
  const t = memoryIO({ env: BASE, ...opts });
  return execute(argv, t.io, { createClient: async () => client }).then((code) => ({ code, stdout: t.stdout.text, stderr: t.stderr.text }));
}

describe('the CLI in-process, through the IO seam and an injected client', () => {
  it('exports every page as NDJSON with the identical body plus cursor', async () => {
    const client = new FakeClient(pagedTenders(250));
    const r = await run(['export', '-f', 'ndjson', '-c', 'deu'], client);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toHaveLength(250);
    expect(client.requests.map((q) => q.body)).toEqual([
      { limit: 100, buyerCountries: ['DEU'] },
      { limit: 100, buyerCountries: ['DEU'], cursor: 'c100' },
      { limit: 100, buyerCountries: ['DEU'], cursor: 'c200' },
    ]);
    expect(client.closed).toBe('gracefully');
  });

  it('shows a table and hints when stdout and stderr are terminals', async () => {
    const r = await run(['search', '-n', '2'], new FakeClient(pagedTenders(5)), { stdoutTTY: true, stderrTTY: true, columns: 80, env: { ...BASE, NO_COLOR: '1' } });
    expect(r.stdout).toMatch(/^id\s+title\n/);
    expect(r.stderr).toContain('Showing 1–2 of 5 tenders.');
  });

  it('maps a usage error to exit 2 before any request', async () => {
    const client = new FakeClient(pagedTenders(5));
    const r = await run(['search', '--limit', '0'], client);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("tenders: --limit takes a whole number from 1 to 100, not '0'\n");
    expect(client.requests).toHaveLength(0);
  });
});

describe('the IO seam', () => {
  const src = new URL('../src/', import.meta.url).pathname;
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? files(path) : [path];
    });

  it('is the only place (with cli.ts and the sandbox) that reads process streams, env or isTTY', () => {
    const offenders = files(src)
      .filter((path) => !/\/(cli|io)\.ts$/.test(path) && !path.includes('/sandbox/'))
      .filter((path) => /process\.(stdout|stderr|env)|isTTY/.test(readFileSync(path, 'utf8').replace(/\/\/.*|\/\*[\s\S]*?\*\//g, '')));
    expect(offenders.map((path) => path.slice(src.length))).toEqual([]);
  });
});
