import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve as resolvePath, sep } from 'node:path';
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

  it('is the only place (with cli.ts and the sandbox) that reads process streams, env, isTTY, the pid or signals a process', () => {
    const offenders = files(src)
      .filter((path) => !/\/(cli|io)\.ts$/.test(path) && !path.includes('/sandbox/'))
      .filter((path) => /\bprocess\.\w|isTTY/.test(readFileSync(path, 'utf8').replace(/\/\/.*|\/\*[\s\S]*?\*\//g, '')));
    expect(offenders.map((path) => path.slice(src.length))).toEqual([]);
  });
});

/**
 * The floors of src/, top to bottom: a module imports from its own floor or
 * below, never above. On the floor of query, api, output and store, each
 * package stands alone (what two of them share lives in model/). The sandbox
 * is a program of its own: it imports nothing of the CLI but the service's
 * contract (contract/, which `tenders serve` answers with too), nor the CLI of it.
 * The page layer (web) stands between serve and that floor: it reads through
 * query, store and output, and the server mounts it.
 */
describe('the floors of src/', () => {
  const src = new URL('../src/', import.meta.url).pathname;
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
    });
  const FLOORS: Record<string, number> = {
    cli: 8,
    commands: 7,
    run: 6,
    serve: 5,
    web: 4.5,
    query: 4,
    api: 4,
    output: 4,
    store: 4,
    files: 3,
    io: 2,
    contract: 2,
    model: 1,
    sandbox: 0,
  };
  /** The package of a file under src/: its first directory, or for a top-level file its floor by name. */
  const packageOf = (path: string): string => {
    const [first, ...rest] = relative(src, path).split(sep);
    if (rest.length > 0) return first!;
    const top: Record<string, string> = { 'cli.ts': 'cli', 'io.ts': 'io', 'terminal-pager.ts': 'io' };
    return top[first!] ?? 'model'; // errors.ts, version.ts, environment.ts: plain data and types
  };
  const importsOf = (path: string): string[] =>
    [...readFileSync(path, 'utf8').matchAll(/(?:^|\n)\s*(?:import|export)[^'"`;]*?from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g)].map((m) =>
      resolvePath(dirname(path), (m[1] ?? m[2])!).replace(/\.js$/, '.ts'),
    );

  it('every package of src/ has a floor', () => {
    expect(files(src).map(packageOf).filter((name) => !(name in FLOORS))).toEqual([]);
  });

  it('looks only down: cli → commands → run → serve → query / api / output / store → files → io / contract → model', () => {
    const wrong: string[] = [];
    for (const file of files(src)) {
      const from = packageOf(file);
      for (const target of importsOf(file)) {
        const to = packageOf(target);
        if (from === to) continue;
        const sandbox = from === 'sandbox' || to === 'sandbox';
        const up = FLOORS[to]! > FLOORS[from]!;
        const sideways = FLOORS[to] === FLOORS[from];
        if ((sandbox && to !== 'model' && to !== 'contract') || (!sandbox && (up || sideways))) wrong.push(`${relative(src, file)} → ${relative(src, target)}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
