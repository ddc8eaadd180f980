#!/usr/bin/env node
// Bundles the CLI and the sandbox into dist/ with esbuild. Types are checked by
// `tsc --noEmit` before this runs.
//
// Start-up is what a user notices on every run (docs/performance.md). With Node 20
// most of it was loading ES modules (each file read through the thread pool and
// linked asynchronously) and compiling them. So the CLI is ONE CommonJS file,
// dist/cli.cjs, read synchronously: all of src/ and commander. A module src/
// imports lazily (`await import(...)`) is in that file too, but evaluated only
// when imported: a run evaluates its own command's code, not the others'. The
// third-party packages but commander are files of their own under dist/vendor/,
// required only by the modules that import them (undici alone is 1 MB: compiling
// it would cost every run more than loading it costs the runs that need it).
// Beside the bundle, dist/cli.cjs.cache holds V8's compiled code of it, made
// here, which bin/load-cli.js hands to V8: a run then compiles almost nothing.
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** Packages loaded from dist/vendor/NAME.cjs, when a module that imports them is evaluated. */
const VENDOR = ['undici', 'ora', 'cli-table3', 'string-width', 'hyparquet-writer', 'pg', 'pgpass', 'pg-copy-streams'];
/** A native addon finds its compiled .node file from its own package directory: required from node_modules. */
const NATIVE = ['better-sqlite3'];

const common = { bundle: true, platform: 'node', target: 'node20.18', logLevel: 'warning' };

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

const vendored = {
  name: 'vendor',
  setup(b) {
    const names = new RegExp(`^(${VENDOR.join('|')})$`);
    b.onResolve({ filter: names }, (args) => ({ path: `./vendor/${args.path}.cjs`, external: true }));
  },
};

// commander requires node:child_process when it loads (with it net, dgram and streams), only to
// spawn executable subcommands, which tenders has none of: in the bundle it is required when used.
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]commander[\\/]/.test(args.importer) ? { path: 'child_process', namespace: 'lazy-builtin' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      contents: `let m; module.exports = new Proxy({}, { get: (_, key) => (m ??= require('node:${args.path}'))[key] });`,
      loader: 'js',
    }));
  },
};

await Promise.all([
  build({
    ...common,
    entryPoints: ['src/cli.ts'],
    outfile: 'dist/cli.cjs',
    format: 'cjs',
    external: NATIVE,
    plugins: [vendored, lazyChildProcess],
    // import() of a package or built-in becomes require(): every one is CommonJS here, and the
    // bundle runs as a vm.Script (bin/load-cli.js), which has no ES module loader.
    supported: { 'dynamic-import': false },
    // A sync into SQLite works on a thread of its own, started from the file built next (src/store/sqlite-run-client.ts).
    define: { __TENDERS_VERSION__: JSON.stringify(version), __TENDERS_SQLITE_WORKER__: JSON.stringify('sqlite-worker.cjs') },
    // The bundle is the function Node's CommonJS loader would wrap it in: bin/load-cli.js hands the
    // file's text to V8 as it is, without joining a 400 kB copy of it to a wrapper on every run.
    banner: { js: '(function (exports, require, module, __filename, __dirname) {' },
    footer: { js: '})' },
    // Fewer bytes to parse on every run; names are kept, so a --verbose stack trace still reads.
    minifyWhitespace: true,
    minifySyntax: true,
  }),
  // The thread a sync into SQLite stages and commits on: the run's code alone, loaded when a sync starts.
  build({ ...common, entryPoints: ['src/store/sqlite-worker.ts'], outfile: 'dist/sqlite-worker.cjs', format: 'cjs', external: NATIVE }),
  // `tenders --version` answers from this alone (bin/tenders.js), without the CLI.
  build({ ...common, entryPoints: ['src/version.ts'], outfile: 'dist/version.cjs', format: 'cjs', define: { __TENDERS_VERSION__: JSON.stringify(version) } }),
  // The sandbox is a program of its own.
  build({ ...common, entryPoints: ['src/sandbox/main.ts'], outfile: 'dist/sandbox/main.js', format: 'esm', packages: 'bundle' }),
  // Each package one file, shaped as Node shows a package to an ES import (the CLI's imports are compiled
  // with Node's rules): an ES-only package's default export (ora, string-width) is what it exports.
  ...VENDOR.map((name) =>
    build({
      ...common,
      stdin: { contents: `const m = require(${JSON.stringify(name)}); module.exports = m && m.__esModule && 'default' in m ? m.default : m;`, resolveDir: '.', loader: 'js' },
      outfile: `dist/vendor/${name}.cjs`,
      format: 'cjs',
      // pg requires pg-native only when asked for it, which tenders never does.
      external: [...NATIVE, 'pg-native'],
    }),
  ),
]);

// The manual page, from the program just built: every command and flag is in it. Building it
// and a few dry runs compile what a run compiles (the program, every command's flags, help,
// the plans); V8's code of that is saved beside the bundle, for bin/load-cli.js.
const { loadCli, CACHE } = createRequire(import.meta.url)('../bin/load-cli.js');
const { cli, script } = loadCli({ cache: false });
writeFileSync(new URL('../dist/tenders.1', import.meta.url), await cli.manualPage());
for (const argv of [['--dry-run', 'search', '-c', 'DEU'], ['--dry-run', 'export', '-s', 'open'], ['--dry-run', 'count']]) {
  if ((await cli.silentRun(argv)) !== 0) throw new Error(`build: tenders ${argv.join(' ')} failed`);
}
writeFileSync(CACHE, script.createCachedData());
