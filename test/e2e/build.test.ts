import { spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { scaled } from '../support/scale.js';
import { testDir } from '../support/test-context.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('a build of the clone (npx and npm link run prepare, which rebuilds)', () => {
  it('leaves dist/ whole while it runs: a tenders started meanwhile runs, and no build directory is left', async () => {
    const build = spawn(process.execPath, ['scripts/build.js'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    build.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    let running = true;
    const built = new Promise<number | null>((resolve) => build.on('close', (code) => ((running = false), resolve(code))));
    const failures: string[] = [];
    let runs = 0;
    // Runs one after another until the build ends, each loading the CLI (and the part that runs commands) from dist/.
    while (running) {
      for (const args of [['--dry-run', 'search', '-c', 'DEU'], ['fields', '--help']]) {
        const r = await runCli(args, 'http://127.0.0.1:9');
        runs++;
        if (r.code !== 0) failures.push(`${args.join(' ')}: exit ${r.code}: ${r.stderr}`);
      }
    }
    expect(await built, stderr).toBe(0);
    expect(runs).toBeGreaterThan(2);
    expect(failures).toEqual([]);
    expect(readdirSync(ROOT).filter((name) => name.startsWith('dist.'))).toEqual([]);
    expect(existsSync(`${ROOT}/dist/cli.cjs.search.cache`)).toBe(true);
  }, scaled(600_000));

  it("a clone's first build (no dist/ yet, as after git clone and npm ci) leaves every file a run needs", async () => {
    const clone = testDir();
    for (const part of ['bin', 'data', 'scripts', 'src', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) cpSync(join(ROOT, part), join(clone, part), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
    const build = spawn(process.execPath, ['scripts/build.js'], { cwd: clone, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    build.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    expect(await new Promise((resolve) => build.on('close', resolve)), stderr).toBe(0);
    for (const file of ['cli.cjs', 'run.cjs', 'sandbox/main.js', 'cpv-2008.tsv', 'tenders.1', 'cli.cjs.search.cache']) expect(existsSync(join(clone, 'dist', file)), file).toBe(true);
  }, scaled(600_000));
});
