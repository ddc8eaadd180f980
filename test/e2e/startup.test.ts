import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv } from '../support/cli.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tenders-startup-'));
  // A module hook that names every module the CLI loads, on stderr.
  await writeFile(join(dir, 'hooks.mjs'), "export async function resolve(s, c, next) { const r = await next(s, c); process.stderr.write(`LOADED ${r.url}\\n`); return r; }\n");
  await writeFile(join(dir, 'register.mjs'), `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The modules a run of the CLI loads: dist files by name, built-ins as node:NAME. */
function loaded(args: string[]): string[] {
  const r = spawnSync(process.execPath, ['--import', join(dir, 'register.mjs'), BIN, ...args], { env: cliEnv('http://127.0.0.1:9'), encoding: 'utf8' });
  expect(r.status).toBe(0);
  return [...r.stderr.matchAll(/^LOADED (\S+)$/gm)].map((m) => (m[1]!.startsWith('node:') ? m[1]! : m[1]!.split('/').pop()!));
}

describe('start-up loads only what the command needs', () => {
  it('--dry-run search loads neither the walk nor the HTTP client, nor crypto, net or tty', () => {
    const modules = loaded(['--dry-run', 'search', '-c', 'DEU']);
    expect(modules).toContain('cli.js');
    expect(modules.filter((m) => /^(walk|client|source|ora)-/.test(m))).toEqual([]);
    expect(modules.filter((m) => ['node:crypto', 'node:net', 'node:tty', 'node:http'].includes(m))).toEqual([]);
  });
});
