import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv } from '../support/cli.js';
import { testDir } from '../support/test-context.js';

interface Loaded {
  /** dist files by their path under dist/ (cli.cjs, vendor/undici.cjs). */
  files: string[];
  /** The source modules of the bundle whose top level ran (src/commands/search.ts). */
  evaluated: string[];
  /** Node's own modules (crypto, http). */
  builtins: string[];
}

/**
 * What a run of the CLI loaded and ran. The bundle is one file in which each
 * module is a function named by its source path, run when the module is first
 * imported; V8's coverage (NODE_V8_COVERAGE) says which of them ran, and
 * which files were loaded at all.
 */
function loaded(args: string[]): Loaded {
  const dir = testDir();
  const coverage = join(dir, 'coverage');
  const exit = join(dir, 'builtins.cjs');
  // Straight to fd 2: making process.stderr here would load what the run did not.
  writeFileSync(exit, "process.on('exit', () => require('fs').writeSync(2, `BUILTINS ${process.moduleLoadList.join(',')}\\n`));\n");
  // stdout to /dev/null (a pipe would load Node's networking for it), stderr a pipe (read here).
  const r = spawnSync(process.execPath, ['--require', exit, BIN, ...args], {
    env: cliEnv('http://127.0.0.1:9', { NODE_V8_COVERAGE: coverage }),
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  expect(r.status, r.stderr).toBe(0);
  const scripts = readdirSync(coverage).flatMap((file) => (JSON.parse(readFileSync(join(coverage, file), 'utf8')) as Coverage).result);
  const dist = scripts.filter((s) => s.url.includes('/dist/'));
  const ran = (f: Coverage['result'][number]['functions'][number]) => (f.ranges[0]?.count ?? 0) > 0;
  return {
    files: dist.map((s) => s.url.split('/dist/')[1]!),
    evaluated: dist.flatMap((s) => s.functions.filter((f) => /^src\/.+\.ts$/.test(f.functionName) && ran(f)).map((f) => f.functionName)),
    builtins: /^BUILTINS (.*)$/m.exec(r.stderr)![1]!.split(',').flatMap((m) => (m.startsWith('NativeModule ') ? [m.slice('NativeModule '.length)] : [])),
  };
}

interface Coverage {
  result: { url: string; functions: { functionName: string; ranges: { count: number }[] }[] }[];
}

/** The commands other than search, by their modules. */
const OTHER_COMMANDS = ['export', 'count', 'fields', 'orgs', 'watch', 'sync', 'changes', 'completion'].map((name) => `src/commands/${name}.ts`);

describe('start-up loads only what the command needs', () => {
  it('--dry-run search runs its own command module, and no other command\'s', () => {
    const { evaluated } = loaded(['--dry-run', 'search', '-c', 'DEU']);
    expect(evaluated).toContain('src/commands/search.ts');
    expect(evaluated.filter((m) => OTHER_COMMANDS.includes(m))).toEqual([]);
    // Nor what runs a walk, a local query or a watch, nor the HTTP client, the progress line or the help texts' makers.
    const unneeded = /^src\/(run\/(walk|session|local-|watch\/|sync)|store\/(sqlite|postgres)|api\/client|output\/progress|commands\/(local-plan|completion-model|manual))/;
    expect(evaluated.filter((m) => unneeded.test(m))).toEqual([]);
  });

  it('--dry-run search loads one file of the CLI, no package but commander (in it), and none of the built-ins it does not use', () => {
    const { files, builtins } = loaded(['--dry-run', 'search', '-c', 'DEU']);
    expect(files).toEqual(['cli.cjs']);
    // child_process (and dgram with it): commander's, for executable subcommands (scripts/build.js); os and fs/promises: taking a lock
    // (files/held-locks.ts); module and the ES loader: the bundle is wrapped by the build, not by Module.wrap (bin/load-cli.js);
    // net: process.stderr, a pipe here, made only when written (io.ts).
    const unused = ['crypto', 'http', 'https', 'tty', 'net', 'internal/deps/undici/undici', 'child_process', 'dgram', 'os', 'fs/promises', 'module', 'internal/modules/esm/loader'];
    expect(builtins.filter((m) => unused.includes(m))).toEqual([]);
  });

  it('the root help builds every command; completion loads its model when it runs', () => {
    expect(loaded(['--help']).evaluated).toEqual(expect.arrayContaining(OTHER_COMMANDS));
    const completion = loaded(['completion', 'bash']).evaluated;
    expect(completion).toEqual(expect.arrayContaining(['src/commands/completion-model.ts', 'src/output/completion/bash.ts']));
  });
});
