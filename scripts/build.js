#!/usr/bin/env node
// Bundles the CLI and the sandbox into dist/ with esbuild. Types are checked by
// `tsc --noEmit` before this runs.
//
// Start-up is what a user notices on every run (docs/performance.md). With Node 20
// most of it was loading ES modules (each file read through the thread pool and
// linked asynchronously) and compiling them. So the CLI is CommonJS, read
// synchronously, in two files (scripts/build-cli.js): dist/cli.cjs, what starting any
// command takes (src/cli.ts's imports, every command module, commander), and
// dist/run.cjs, the rest of src/, which a module of cli.cjs imports lazily. A module
// imported lazily is evaluated only when imported: a run evaluates its own command's
// code, not the others'. The third-party packages but commander are files of their own
// under dist/vendor/, required only by the modules that import them. Beside each of
// these files, NAME.cjs.cache holds V8's compiled code of it, made here, which
// bin/tenders.js hands to V8: a run then compiles almost nothing.
import { build } from 'esbuild';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { buildCli } from './build-cli.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** Packages loaded from dist/vendor/NAME.cjs, when a module that imports them is evaluated. */
const VENDOR = ['undici', 'ora', 'cli-table3', 'string-width', 'hyparquet-writer', 'pg', 'pgpass', 'pg-copy-streams', 'better-sqlite3'];
/**
 * What a vendor file holds, when not the whole package. undici's index.js loads all of undici
 * (fetch, WebSocket, the mock agents, caches, and with its cookies Node's own copy of undici):
 * src/api/client.ts uses EnvHttpProxyAgent and Pool, with the request API index.js gives every
 * dispatcher. This is that part of index.js.
 */
const ENTRY = {
  undici: `const Dispatcher = require('undici/lib/dispatcher/dispatcher');
Object.assign(Dispatcher.prototype, require('undici/lib/api'));
module.exports = { Pool: require('undici/lib/dispatcher/pool'), EnvHttpProxyAgent: require('undici/lib/dispatcher/env-http-proxy-agent') };`,
};
/** A native addon finds its compiled .node file from its own package directory: the threads' bundles require it from node_modules. */
const NATIVE = ['better-sqlite3'];

const common = { bundle: true, platform: 'node', target: 'node20.18', logLevel: 'warning' };
// A file bin/tenders.js runs: the function Node's CommonJS loader would wrap it in, so that its text is
// handed to V8 as it is, without joining a copy of it to a wrapper on every run; fewer bytes to read and
// parse (whitespace and syntax minified; names kept, so that a --verbose stack trace still reads).
const loaded = {
  format: 'cjs',
  banner: { js: '(function (exports, require, module, __filename, __dirname) {' },
  footer: { js: '})' },
  minifyWhitespace: true,
  minifySyntax: true,
};

// The build writes its bundles beside dist/, in a directory of its own, and moves each into dist/ when all
// are made (a rename: atomic, file by file): a tenders process started from this clone meanwhile (npx runs
// `prepare`, which rebuilds) finds every file it loads, old or new, never a dist/ half emptied. A build
// that fails leaves dist/ as it was. The manual page and V8's code caches are made after, from dist/
// itself (a cache holds the path of the script it was made from: stack traces name it), each written
// beside its place and renamed onto it; until then a run compiles as it would without them.
const ROOT = new URL('..', import.meta.url).pathname;
const OUT = `dist.building-${process.pid}`;
const out = (path) => join(ROOT, OUT, path);
rmSync(out(''), { recursive: true, force: true });
process.on('exit', () => rmSync(out(''), { recursive: true, force: true }));

const vendored = {
  name: 'vendor',
  setup(b) {
    const names = new RegExp(`^(${VENDOR.join('|')})$`);
    b.onResolve({ filter: names }, (args) => ({ path: `./vendor/${args.path}.cjs`, external: true }));
  },
};

/**
 * A built-in that a package requires when it loads but uses only on some paths: in the bundle it is
 * required when first used. `eager`: its properties the package reads as it loads, copied here.
 * commander requires node:child_process (with it net, dgram and streams) only to spawn executable
 * subcommands, which tenders has none of; undici requires node:http2 (with it tls and crypto) for
 * HTTP/2 sessions, which tenders never asks for, and reads its constants as it loads.
 */
const lazyBuiltin = (name, importer, eager = {}) => ({
  name: `lazy-${name}`,
  setup(b) {
    b.onResolve({ filter: new RegExp(`^node:${name}$`) }, (args) => (importer.test(args.importer) ? { path: name, namespace: 'lazy-builtin' } : undefined));
    b.onLoad({ filter: new RegExp(`^${name}$`), namespace: 'lazy-builtin' }, () => ({
      contents: `const eager = ${JSON.stringify(eager)}; let m;
module.exports = new Proxy(eager, { get: (target, key) => (key in target ? target[key] : (m ??= require('node:${name}'))[key]) });`,
      loader: 'js',
    }));
  },
});
const lazyBuiltins = {
  commander: lazyBuiltin('child_process', /[\\/]commander[\\/]/),
  undici: lazyBuiltin('http2', /[\\/]undici[\\/]/, { constants: createRequire(import.meta.url)('node:http2').constants }),
};

/**
 * tenders runs on Node alone, and pg, as it loads, prepares for other runtimes:
 * - it asks whether it runs in a Cloudflare Worker: on Node 20 its `typeof Response` loads and compiles
 *   Node's own copy of undici and builds a Response, 30-40 ms of every PostgreSQL command's start (a
 *   profile of count --local). The bundle takes Node's sockets without asking.
 * - its SCRAM and MD5 logins use Web Crypto, loaded with node:crypto as pg loads. The bundle has
 *   scripts/pg-node-crypto.cjs instead: the same functions with Node's crypto, loaded at a login.
 */
const PG_EXPORTS = ['postgresMd5PasswordHash', 'randomBytes', 'deriveKey', 'sha256', 'hashByName', 'hmacSha256', 'md5'];
const pgOnNode = {
  name: 'pg-on-node',
  setup(b) {
    b.onLoad({ filter: /[\\/]pg[\\/]lib[\\/]stream\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const contents = text.replace('if (isCloudflareRuntime())', 'if (false)');
      if (contents === text) throw new Error(`build: ${args.path} no longer asks isCloudflareRuntime(): see pgOnNode in scripts/build.js`);
      return { contents, loader: 'js' };
    });
    b.onLoad({ filter: /[\\/]pg[\\/]lib[\\/]crypto[\\/]utils\.js$/ }, (args) => {
      const exported = /module\.exports = \{([^}]*)\}/.exec(readFileSync(args.path, 'utf8'))?.[1].split(',').map((name) => name.trim()).filter(Boolean);
      if (exported?.join() !== PG_EXPORTS.join()) throw new Error(`build: ${args.path} exports ${exported}, not what scripts/pg-node-crypto.cjs does: see pgOnNode in scripts/build.js`);
      return { contents: readFileSync(new URL('pg-node-crypto.cjs', import.meta.url), 'utf8'), loader: 'js' };
    });
  },
};

/**
 * better-sqlite3 finds its compiled addon with the `bindings` package, which reads a stack trace to
 * find the package and then tries a dozen paths, each a failed require but the third: with Node
 * resolving the package's dozen files one by one, 10 ms of every command that opens a SQLite copy
 * (a profile of show --local). In dist/vendor/better-sqlite3.cjs its files are one, with its code
 * cache, and the addon is required from where its install puts it (build/Release), found from the
 * package; a build put elsewhere (a debug build) is still found by `bindings`, told the package.
 */
const sqliteAddon = {
  name: 'sqlite-addon',
  setup(b) {
    b.onResolve({ filter: /^bindings$/ }, (args) => (args.namespace === 'sqlite-addon' ? { path: 'bindings', external: true } : { path: 'bindings', namespace: 'sqlite-addon' }));
    b.onResolve({ filter: /^better-sqlite3\/package\.json$/ }, (args) => ({ path: args.path, external: true }));
    b.onLoad({ filter: /.*/, namespace: 'sqlite-addon' }, () => ({
      contents: `const { dirname, join } = require('node:path');
module.exports = (name) => {
  const root = dirname(require.resolve('better-sqlite3/package.json'));
  try {
    return require(join(root, 'build', 'Release', name));
  } catch (err) {
    if (err.code !== 'MODULE_NOT_FOUND') throw err;
  }
  return require(require.resolve('bindings', { paths: [root] }))({ bindings: name, module_root: root });
};`,
      loader: 'js',
    }));
  },
};

/** The names the CLI's modules take from the build: the version, and the files they find beside the bundle. */
const DEFINES = {
  __TENDERS_VERSION__: JSON.stringify(version),
  __TENDERS_SQLITE_WORKER__: JSON.stringify('sqlite-worker.cjs'),
  __TENDERS_SERVE_WORKER__: JSON.stringify('serve-worker.cjs'),
  __TENDERS_CPV_FILE__: JSON.stringify('cpv-2008.tsv'),
};

await Promise.all([
  // The CLI: dist/cli.cjs (starting any command) and dist/run.cjs (running one), scripts/build-cli.js.
  buildCli(OUT, {
    ...common,
    ...loaded,
    // dist/cli.cjs.map and dist/run.cjs.map, beside the files and not named in them: nothing more to read at
    // start-up. A --verbose stack trace of an unexpected error is mapped back into src/ with them when printed.
    sourcemap: 'external',
    sourcesContent: false,
    plugins: [vendored, lazyBuiltins.commander],
    // import() of a package or built-in becomes require(): every one is CommonJS here, and the
    // bundle runs as a vm.Script (bin/tenders.js), which has no ES module loader.
    supported: { 'dynamic-import': false },
    // A sync into SQLite works on a thread of its own, started from the file built next (src/store/sqlite-run-client.ts).
    // The CPV vocabulary, read when a command needs a name (src/files/cpv-file.ts), is copied beside it below.
    define: DEFINES,
  }),
  // The thread a sync into SQLite stages and commits on: the run's code alone, loaded when a sync starts.
  build({ ...common, entryPoints: ['src/store/sqlite-worker.ts'], outfile: out('sqlite-worker.cjs'), format: 'cjs', external: NATIVE }),
  // The threads `tenders serve` answers from a SQLite copy on (src/serve/answer-pool.ts): started with the server.
  // The store's code as the CLI's, beside it: the same names defined.
  build({ ...common, entryPoints: ['src/serve/answer-thread.ts'], outfile: out('serve-worker.cjs'), format: 'cjs', external: NATIVE, supported: { 'dynamic-import': false }, define: DEFINES }),
  // `tenders --version` answers from this alone (bin/tenders.js), without the CLI.
  build({ ...common, entryPoints: ['src/version.ts'], outfile: out('version.cjs'), format: 'cjs', define: { __TENDERS_VERSION__: JSON.stringify(version) } }),
  // The sandbox is a program of its own.
  build({ ...common, entryPoints: ['src/sandbox/main.ts'], outfile: out('sandbox/main.js'), format: 'esm', packages: 'bundle' }),
  // Each package one file, shaped as Node shows a package to an ES import (the CLI's imports are compiled
  // with Node's rules): an ES-only package's default export (ora, string-width) is what it exports.
  ...VENDOR.map((name) =>
    build({
      ...common,
      ...loaded,
      stdin: {
        contents: ENTRY[name] ?? `const m = require(${JSON.stringify(name)}); module.exports = m && m.__esModule && 'default' in m ? m.default : m;`,
        resolveDir: '.',
        loader: 'js',
      },
      outfile: out(`vendor/${name}.cjs`),
      plugins: { undici: [lazyBuiltins.undici], pg: [pgOnNode], 'better-sqlite3': [sqliteAddon] }[name] ?? [],
      // pg requires pg-native only when asked for it, which tenders never does.
      external: ['pg-native'],
    }),
  ),
]);
// The CPV vocabulary (docs/local-filters.md says where it came from), read beside the bundle.
copyFileSync(new URL('../data/cpv-2008.tsv', import.meta.url), out('cpv-2008.tsv'));
const DIST = join(ROOT, 'dist');
const made = moveInto(out(''), DIST);

/** Writes `path` (under dist/) whole or not at all: a run reading it meanwhile finds the old one or the new. */
const writeAtomic = (path, data) => {
  writeFileSync(`${path}.${process.pid}.tmp`, data);
  renameSync(`${path}.${process.pid}.tmp`, path);
  if (made.size > 0) made.add(relative(DIST, path));
};


// The manual page, from the program just built: every command and flag is in it. Building it
// and a few dry runs compile what a run compiles (the program, every command's flags, help,
// the plans); V8's code of that is saved beside cli.cjs and run.cjs, for bin/tenders.js. Then each
// vendor file is loaded (its top level run) and its code saved beside it, for either state of the
// V8 flag that loading undici sets (bin/tenders.js, baselineWasm): NAME.cjs.cache made before it,
// for a run that loads the file before undici or without it (show --local), and NAME.cjs.liftoff.cache
// after, for one that loads it after undici. V8 accepts a cache made under its flags only.
const { loadCli, scripts, vendor, vendorCache } = createRequire(import.meta.url)('../bin/tenders.js');
const cli = loadCli({ cache: false });
writeAtomic(join(DIST, 'tenders.1'), await cli.manualPage());
for (const argv of [['--dry-run', 'search', '-c', 'DEU'], ['--dry-run', 'export', '-s', 'open'], ['--dry-run', 'count']]) {
  if ((await cli.silentRun(argv)) !== 0) throw new Error(`build: tenders ${argv.join(' ')} failed`);
}
const saveCaches = (cacheOf) => {
  for (const [file, script] of scripts) writeAtomic(cacheOf(file), script.createCachedData());
};
saveCaches((file) => `${file}.cache`);
scripts.clear();
for (const name of VENDOR.filter((n) => n !== 'undici')) vendor(`${name}.cjs`, false);
saveCaches(vendorCache);
vendor('undici.cjs', false);
saveCaches(vendorCache);

// A cache per command, made by a run of it in a process of its own (scripts/command-cache.cjs): what a
// run naming the command compiles, without the other commands' code and the help's (bin/tenders.js). A
// command without one (changes, completion) takes the whole cache. The runs keep their state to themselves.
// Each is a dry run, but show's, which has none: it shows a tender of a copy synced from a small sandbox,
// and its run of run.cjs is kept too (run.cjs.show.cache): a show compiles what no dry run does (the
// copy's reading side, the view), and it starts on every call.
const home = mkdtempSync(join(tmpdir(), 'tenders-build-'));
// Where no sandbox can be started (no loopback to listen on), show takes the whole caches, as a command without its own.
const shown = await sandboxCopy(home).catch((err) => console.error(`build: no code cache of show: ${err.message.replace(/^build: /, '').split('\n')[0]}`));
const COMMAND_RUNS = {
  search: { args: ['--dry-run', 'search', '-c', 'DEU'] },
  export: { args: ['--dry-run', 'export', '-s', 'open'] },
  count: { args: ['--dry-run', 'count'] },
  fields: { args: ['--dry-run', 'fields'] },
  orgs: { args: ['--dry-run', 'orgs', 'tenders', 'ORG-1'] },
  watch: { args: ['--dry-run', 'watch', 'w', '-c', 'DEU'] },
  sync: { args: ['--dry-run', 'sync', 's', '-c', 'DEU'] },
  ...(shown && { show: { args: ['show', shown.id, '--local', '--db', shown.db], run: true } }),
};
await Promise.all(
  Object.entries(COMMAND_RUNS).map(
    ([name, { args, run = false }]) =>
      new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [new URL('command-cache.cjs', import.meta.url).pathname, name, run ? 'cli+run' : 'cli', ...args], { env: commandEnv(home), stdio: ['ignore', 'ignore', 'inherit'] });
        child.on('error', reject);
        child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`build: the code cache of ${name} failed (exit ${code})`))));
      }),
  ),
);
rmSync(home, { recursive: true, force: true });
// The command caches (scripts/command-cache.cjs wrote them) are this build's too; then what earlier builds left goes.
// An empty `made` means this build made dist/ whole (the first build of a clone): nothing there is old.
if (made.size > 0) {
  for (const name of Object.keys(COMMAND_RUNS)) made.add(`cli.cjs.${name}.cache`);
  for (const [name, { run }] of Object.entries(COMMAND_RUNS)) if (run) made.add(`run.cjs.${name}.cache`);
  prune(DIST, made);
}

/** The environment of the build's runs of the CLI: their own home and state, no config file, a service that is not there. */
function commandEnv(home) {
  return { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), TENDERS_STATE_DIR: join(home, 'state'), TENDERS_BASE_URL: 'http://127.0.0.1:9' };
}

/** A copy in `home` synced by the CLI just built from a sandbox of a few tenders, and the id of one of them. */
async function sandboxCopy(home) {
  const sandbox = spawn(process.execPath, [join(ROOT, 'bin/tenders-sandbox.js'), '--size', '5', '--today', '2026-01-01'], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      let err = '';
      sandbox.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('\n')) resolve(out.split('\n')[0]);
      });
      sandbox.stderr.on('data', (chunk) => (err += chunk));
      sandbox.on('error', reject);
      sandbox.on('exit', (code) => reject(new Error(`build: the sandbox exited ${code}: ${err}`)));
    });
    const db = join(home, 'copy.db');
    const cli = (args) => {
      const r = spawnSync(process.execPath, [join(ROOT, 'bin/tenders.js'), ...args], { env: { ...commandEnv(home), TENDERS_BASE_URL: url }, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`build: tenders ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
      return r.stdout;
    };
    cli(['sync', 'build', '--db', db, '--quiet']);
    return { db, id: JSON.parse(cli(['search', '--local', '--db', db, '-n', '1', '-f', 'ndjson'])).id };
  } finally {
    sandbox.kill();
  }
}

/**
 * Puts the bundles in place: dist/ made by a rename when there is none; else each file renamed over its
 * old self (never a moment without it), or left as it is when the new one is the same bytes (a rebuild of
 * the same source changes nothing, and the old caches stay good for it until the new ones are written).
 * The files of dist/ this build made (relative paths) are `made`; prune() removes the others at the end.
 */
function moveInto(from, to) {
  const made = new Set();
  if (!existsSync(to)) {
    renameSync(from, to);
    return made;
  }
  const move = (dir) => {
    for (const entry of readdirSync(join(from, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      made.add(path);
      if (entry.isDirectory()) {
        mkdirSync(join(to, path), { recursive: true });
        move(path);
      } else if (!sameBytes(join(from, path), join(to, path))) renameSync(join(from, path), join(to, path));
    }
  };
  move('');
  rmSync(from, { recursive: true, force: true });
  return made;
}

function sameBytes(a, b) {
  try {
    return readFileSync(a).equals(readFileSync(b));
  } catch {
    return false;
  }
}

/** Removes what an earlier build left in `dir` that this one did not make (`made`: relative paths; none when it made dist/ whole). */
function prune(dir, made, under = '') {
  if (made.size === 0) return;
  for (const entry of readdirSync(join(dir, under), { withFileTypes: true })) {
    const path = join(under, entry.name);
    if (!made.has(path)) rmSync(join(dir, path), { recursive: true, force: true });
    else if (entry.isDirectory()) prune(dir, made, path);
  }
}
