import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv, runCli } from '../support/cli.js';
import { postgres, POSTGRES_MISSING } from '../support/postgres.js';
import { useSandbox } from '../support/sandbox.js';
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
 * which files were loaded at all. stdout goes to /dev/null unless `stdout` is
 * a descriptor (a pipe would load Node's networking for it); stderr is a pipe.
 */
function loaded(args: string[], stdout: number | 'ignore' = 'ignore'): Loaded {
  const { coverage, exit } = probes();
  const r = spawnSync(process.execPath, ['--require', exit, BIN, ...args], {
    env: cliEnv('http://127.0.0.1:9', { NODE_V8_COVERAGE: coverage }),
    encoding: 'utf8',
    stdio: ['ignore', stdout, 'pipe'],
  });
  expect(r.status, r.stderr).toBe(0);
  return read(coverage, r.stderr);
}

/** The same for a run that talks to `baseUrl` (spawned without blocking this worker, which serves the sandbox). */
async function loadedTalking(args: string[], baseUrl: string): Promise<Loaded> {
  const { coverage, exit } = probes();
  const r = await runCli(args, baseUrl, { env: { NODE_V8_COVERAGE: coverage, NODE_OPTIONS: `--require ${exit}` } });
  expect(r.code, r.stderr).toBe(0);
  return read(coverage, r.stderr);
}

function probes(): { coverage: string; exit: string } {
  // A directory of its own for each run's coverage: a test may look at two runs.
  const dir = mkdtempSync(join(testDir(), 'run-'));
  const exit = join(dir, 'builtins.cjs');
  // Straight to fd 2: making process.stderr here would load what the run did not.
  writeFileSync(exit, "process.on('exit', () => require('fs').writeSync(2, `BUILTINS ${process.moduleLoadList.join(',')}\\n`));\n");
  return { coverage: join(dir, 'coverage'), exit };
}

function read(coverage: string, stderr: string): Loaded {
  const scripts = readdirSync(coverage).flatMap((file) => (JSON.parse(readFileSync(join(coverage, file), 'utf8')) as Coverage).result);
  const dist = scripts.filter((s) => s.url.includes('/dist/'));
  const ran = (f: Coverage['result'][number]['functions'][number]) => (f.ranges[0]?.count ?? 0) > 0;
  return {
    files: dist.map((s) => s.url.split('/dist/')[1]!),
    evaluated: dist.flatMap((s) => s.functions.filter((f) => /^src\/.+\.ts$/.test(f.functionName) && ran(f)).map((f) => f.functionName)),
    builtins: /^BUILTINS (.*)$/m.exec(stderr)![1]!.split(',').flatMap((m) => (m.startsWith('NativeModule ') ? [m.slice('NativeModule '.length)] : [])),
  };
}

interface Coverage {
  result: { url: string; functions: { functionName: string; ranges: { count: number }[] }[] }[];
}

/** Built-ins a dry run does not use. */
const UNUSED = ['crypto', 'http', 'https', 'tty', 'net', 'internal/deps/undici/undici', 'child_process', 'dgram', 'os', 'fs/promises', 'module', 'internal/modules/esm/loader'];

/** The commands other than search, by their modules. */
const OTHER_COMMANDS = ['export', 'count', 'fields', 'orgs', 'watch', 'sync', 'changes', 'show', 'cpv', 'completion'].map((name) => `src/commands/${name}.ts`);

describe('start-up loads only what the command needs', () => {
  it('--dry-run search runs its own command module, and no other command\'s', () => {
    const { evaluated } = loaded(['--dry-run', 'search', '-c', 'DEU']);
    expect(evaluated).toContain('src/commands/search.ts');
    expect(evaluated.filter((m) => OTHER_COMMANDS.includes(m))).toEqual([]);
    // Nor what runs a walk, a local query or a watch, nor the HTTP client, the progress line or the help texts' makers.
    const unneeded = /^src\/(run\/(walk|session|local-|watch\/|sync)|store\/(sqlite|postgres)|api\/client|output\/progress|commands\/(local-plan|completion-model|manual))/;
    expect(evaluated.filter((m) => unneeded.test(m))).toEqual([]);
  });

  it('--dry-run search loads one file of the CLI (not run.cjs, what runs commands), no package but commander (in it), and none of the built-ins it does not use', () => {
    const { files, builtins } = loaded(['--dry-run', 'search', '-c', 'DEU']);
    expect(files).toEqual(['cli.cjs']);
    // child_process (and dgram with it): commander's, for executable subcommands (scripts/build.js); os and fs/promises: taking a lock
    // (files/held-locks.ts); module and the ES loader: the bundle is wrapped by the build, not by Module.wrap (bin/tenders.js);
    // net: process.stderr, a pipe here, made only when written (io.ts); stream: stdout, /dev/null here, is written without
    // Node's streams (io.ts, FileStdout).
    const unused = [...UNUSED, 'stream', 'internal/streams/readable', 'internal/streams/writable'];
    expect(builtins.filter((m) => unused.includes(m))).toEqual([]);
  });

  it('--dry-run search into a regular file writes it whole, without loading Node\'s streams either', () => {
    const file = join(testDir(), 'out.txt');
    const fd = openSync(file, 'w');
    let builtins: string[];
    try {
      ({ builtins } = loaded(['--dry-run', 'search', '-c', 'DEU'], fd));
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(file, 'utf8')).toBe('POST http://127.0.0.1:9/api/v1/tenders/search\n{\n  "buyerCountries": [\n    "DEU"\n  ]\n}\n');
    expect(builtins.filter((m) => ['stream', 'net', 'tty'].includes(m))).toEqual([]);
  });

  it('a config file is read at start-up from cli.cjs alone: the TOML parser is in it, not in run.cjs or a vendor file', () => {
    const file = join(testDir(), 'home', '.config', 'tenders', 'config.toml');
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, '# the office\ntimeout = 60000\n\n[profile.work]\nrate = 2\n');
    const { files, builtins } = loaded(['--dry-run', 'search', '-c', 'DEU']);
    expect(files).toEqual(['cli.cjs']);
    expect(builtins.filter((m) => UNUSED.includes(m))).toEqual([]);
  });

  it('the root help builds every command; completion loads its model when it runs', () => {
    expect(loaded(['--help']).evaluated).toEqual(expect.arrayContaining(OTHER_COMMANDS));
    const completion = loaded(['completion', 'bash']).evaluated;
    expect(completion).toEqual(expect.arrayContaining(['src/commands/completion-model.ts', 'src/output/completion/bash.ts']));
  });
});

describe('a run that makes requests loads undici as it needs it', () => {
  const sb = useSandbox({ size: 30, seed: 3 });

  it('search loads the part of the CLI that runs commands and the vendor file of undici, not Node\'s own copy of undici, nor HTTP/2 with TLS', async () => {
    const { files, evaluated, builtins } = await loadedTalking(['search', '-c', 'DEU', '-n', '5'], sb.url);
    expect(files).toEqual(['cli.cjs', 'run.cjs', 'vendor/undici.cjs']);
    expect(evaluated).toEqual(expect.arrayContaining(['src/run/walk.ts', 'src/api/client.ts']));
    expect(evaluated.filter((m) => /^src\/(store\/(sqlite|postgres)|run\/watch\/)/.test(m))).toEqual([]);
    // Node's undici is loaded by what undici's index.js has (fetch's cookies); http2, tls and crypto's TLS side by undici's
    // HTTP/2 client, which this build loads only when a session opens (scripts/build.js).
    expect(builtins.filter((m) => ['internal/deps/undici/undici', 'http2', 'tls', '_tls_wrap', 'internal/http2/core'].includes(m))).toEqual([]);
    expect(builtins).toContain('http'); // it did make its request with undici
  });
});

describe.skipIf(POSTGRES_MISSING)('a run against PostgreSQL loads pg as Node runs it', () => {
  const sb = useSandbox({ size: 30, seed: 3 });

  it('show --local over a SQLite copy loads no node:crypto (only a sync makes the serve secret), no networking, no threads (only a sync has one)', async () => {
    const db = join(testDir(), 'copy.db');
    const synced = await runCli(['sync', 'x', '--db', db], sb.url);
    expect(synced.code, synced.stderr).toBe(0);
    const first = await runCli(['search', '--local', '--db', db, '-n', '1', '-f', 'ndjson'], sb.url);
    const id = (JSON.parse(first.stdout) as { id: string }).id;
    const { builtins, evaluated, files } = loaded(['show', id, '--local', '--db', db]);
    expect(builtins.filter((m) => ['crypto', 'http', 'https', 'net', 'internal/deps/undici/undici', 'worker_threads'].includes(m))).toEqual([]);
    // Nor what only a writer uses (the locks' files, with node:fs/promises; a sync's run), nor node:v8 (the flag for
    // undici's WebAssembly: bin/tenders.js); better-sqlite3 is one file of dist/vendor/, not its package's dozen.
    expect(builtins.filter((m) => ['v8', 'fs/promises'].includes(m))).toEqual([]);
    expect(evaluated.filter((m) => /^src\/(files\/(lock|exclusive-file|fs)|store\/sqlite-(run|new-copy))/.test(m))).toEqual([]);
    expect(files).toEqual(['cli.cjs', 'run.cjs', 'vendor/better-sqlite3.cjs']);
  });

  it('sync loads the vendor files of pg, not Node\'s own copy of undici (pg\'s test for a Cloudflare Worker, scripts/build.js) nor Web Crypto', async () => {
    const db = await (await postgres()).createDatabase('startup');
    const { files, builtins } = await loadedTalking(['sync', 'x', '--db', db], sb.url);
    expect(files).toEqual(expect.arrayContaining(['vendor/pg.cjs', 'vendor/pg-copy-streams.cjs', 'vendor/undici.cjs']));
    expect(builtins).toContain('net'); // it did talk to the server
    expect(builtins).not.toContain('internal/deps/undici/undici');
    // A show of it logs in by SCRAM with Node's crypto, not pg's Web Crypto (scripts/pg-node-crypto.cjs).
    const id = (JSON.parse((await runCli(['search', '--local', '--db', db, '-n', '1', '-f', 'ndjson'], sb.url)).stdout) as { id: string }).id;
    const show = loaded(['show', id, '--local', '--db', db]);
    expect(show.files).toEqual(['cli.cjs', 'run.cjs', 'vendor/pg.cjs']);
    expect(show.builtins).toContain('crypto');
    expect(show.builtins).not.toContain('internal/crypto/webcrypto');
  });
});

describe('the code caches the build saves', () => {
  it('are accepted by V8 where bin/tenders.js uses them: the CLI\'s before any vendor file, each vendor file\'s for the state undici leaves the V8 flag in', () => {
    const dist = join(BIN, '../../dist');
    const commands = readdirSync(dist).flatMap((f) => /^cli\.cjs\.([a-z]+)\.cache$/.exec(f)?.[1] ?? []);
    expect(commands).toEqual(expect.arrayContaining(['search', 'export', 'count', 'show']));
    const vendors = readdirSync(join(dist, 'vendor')).filter((f) => f.endsWith('.cjs'));
    const others = vendors.filter((f) => f !== 'undici.cjs');
    // One process per cache of the CLI (V8 compiles a script once a process). In the last two, run.cjs (as a walk
    // asks for it), then the vendor files: the others before undici (its flag not set yet) and after it.
    const probes: [string[], string[] | undefined][] = [...commands.map((name): [string[], undefined] => [[name], undefined]), [['--help'], [...others, 'undici.cjs']], [['search'], ['undici.cjs', ...others]]];
    const rejected = probes.map(([args, order]) => {
      const probe = `const L = require(${JSON.stringify(BIN)}); const cli = L.loadCli({ args: ${JSON.stringify(args)} });
${order ? `L.moduleOf('run', 'src/run/walk.ts', true); for (const f of ${JSON.stringify(order)}) L.vendor(f, true);` : ''}
process.stdout.write(JSON.stringify([...L.scripts].map(([file, s]) => [file.split('/dist/')[1], L.cacheUsed.get(file)?.split('/dist/')[1], s.cachedDataRejected])));`;
      const r = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8', env: cliEnv(undefined) });
      expect(r.status, r.stderr).toBe(0);
      const runs = JSON.parse(r.stdout) as [string, string, boolean][];
      // Each command's own cache, the whole one for help, and run.cjs's and each vendor file's.
      expect(runs[0]).toEqual(['cli.cjs', args[0] === '--help' ? 'cli.cjs.cache' : `cli.cjs.${args[0]}.cache`, false]);
      if (order) {
        expect(runs.map(([file]) => file)).toEqual(['cli.cjs', 'run.cjs', ...order.map((f) => `vendor/${f}`)]);
        // The build's cache made before undici's flag for a file loaded before undici, the one made after for the rest.
        const after = order.indexOf('undici.cjs');
        const wanted = order.map((f, i) => `vendor/${f}${i >= after ? '.liftoff' : ''}.cache`);
        expect(runs.slice(2).map(([, cache]) => cache)).toEqual(wanted);
      }
      return runs.filter(([, cache, no]) => no || cache === undefined);
    });
    expect(rejected.flat()).toEqual([]);
  });

  it('show takes caches of its own of cli.cjs and run.cjs, made by a real show in the build, and V8 accepts them', () => {
    const probe = `const L = require(${JSON.stringify(BIN)}); L.loadCli({ args: ['show', 'T-1', '--local'] }); L.moduleOf('run', 'src/run/show.ts', true); L.vendor('better-sqlite3.cjs', true);
process.stdout.write(JSON.stringify([...L.scripts].map(([file, s]) => [file.split('/dist/')[1], L.cacheUsed.get(file)?.split('/dist/')[1], s.cachedDataRejected])));`;
    const r = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8', env: cliEnv(undefined) });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      ['cli.cjs', 'cli.cjs.show.cache', false],
      ['run.cjs', 'run.cjs.show.cache', false],
      ['vendor/better-sqlite3.cjs', 'vendor/better-sqlite3.cjs.cache', false],
    ]);
  });
});
