import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { cliEnv, ndjson, runShell, type CliResult } from '../support/cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PATH = '/api/v1/tenders/search';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ size: 50 });
});
afterAll(() => sb.close());

/**
 * npx in a HOME without its cache (each test's own) installs the project into
 * ~/.npm/_npx, which runs its `prepare` script: a rebuild of dist/ in the
 * middle of the run, under every other test that spawns the CLI (they failed
 * to load it), and half a minute of tsc. dist/ is built before the tests
 * (pretest): npx runs it as it is, without scripts, the registry or its notices.
 */
const NPX_ENV = {
  npm_config_ignore_scripts: 'true',
  npm_config_offline: 'true',
  npm_config_update_notifier: 'false',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
};

/** Runs `file args` in the project's directory, as a user who cloned it would. */
function run(file: string, args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: ROOT, env: cliEnv(sb.url, NPX_ENV), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** The command the next-page hint gives (--verbose prints the hints when stderr is no terminal). */
const hint = (r: CliResult) => r.stderr.split('Next page:\n')[1]?.split('\n')[0];

describe('the next-page hint repeats the command as it was run', () => {
  it('node bin/tenders.js: the script by its path', async () => {
    const r = await run(process.execPath, ['bin/tenders.js', 'search', '-n', '2', '-v']);
    expect(r.code).toBe(0);
    expect(hint(r)).toMatch(/^node bin\/tenders\.js search -n 2 -v --cursor \S+ --shown 2$/);
  });

  it('npx tenders: npx tenders, and the hint runs as it is', async () => {
    const built = () => {
      const { ino, mtimeMs } = statSync(join(ROOT, 'dist', 'cli.cjs'));
      return { ino, mtimeMs };
    };
    const before = built();
    const r = await run('npx', ['tenders', 'search', '-n', '2', '-v']);
    expect(r.code).toBe(0);
    const command = hint(r)!;
    expect(command).toMatch(/^npx tenders search -n 2 -v --cursor \S+ --shown 2$/);
    const next = await runShell(`cd '${ROOT}' && ${command} 2>/dev/null`, sb.url, { env: NPX_ENV });
    expect(ndjson(next.stdout)).toEqual(sb.truth(PATH, {}).slice(2, 4));
    // The tests' dist/ was not rebuilt under them.
    expect(built()).toEqual(before);
  });
});
