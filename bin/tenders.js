#!/usr/bin/env node
// CommonJS, like the bundle it loads (bin/package.json says so): Node's ES module
// loader is never started, which a run would pay for before doing anything.
//
// The CLI is dist/cli.cjs, and the packages it uses are dist/vendor/NAME.cjs, each
// loaded when a module that imports it runs. Beside each file the build saved V8's
// compiled code of it (NAME.cjs.cache, scripts/build.js), which this file hands to
// V8: compiling the bundle would be most of a run's start-up, and undici (1 MB) most
// of what a request costs, every time. Node 20 has no compile cache of its own
// (Node 22's module.enableCompileCache). V8 ignores a cache it does not accept
// (another Node version, other V8 flags) and compiles as usual; it checks the
// source's length, not its text, so a file changed after the build (newer than its
// cache) is compiled as usual too. Nothing is written at run time.
//
// Each file is a function expression already (the build wraps it as Node's CommonJS
// loader would): no Module.wrap, so neither a copy of its text nor node:module (with
// which Node loads its ES module loader) on every run. The loader lives here, not in
// a module of its own: a second file to resolve and compile costs every run.
const { readFileSync, statSync } = require('node:fs');
const { dirname, join } = require('node:path');

const DIST = join(__dirname, '../dist');
const CLI = join(DIST, 'cli.cjs');
const RUN = join(DIST, 'run.cjs');
const VENDOR = './vendor/';

/** The scripts loaded so far, by file: the build saves their caches (scripts/build.js). */
const scripts = new Map();
/** The code cache each file was run with, by file (the start-up test looks). */
const cacheUsed = new Map();
const vendored = new Map();
/** The command a run names (loadCli): its own caches of cli.cjs and run.cjs are taken first where the build made them. */
let command;
/** The exports of cli.cjs and run.cjs, once run; the modules of each given to the other, by key. */
const parts = new Map();
const given = new Map();

/**
 * Runs dist file `file` (a function expression taking what CommonJS gives a module)
 * and returns its exports, with V8's code from the first of `caches` there is (none: `[]`).
 * Its `require` loads dist/vendor/ files the same way, once.
 */
function run(file, caches) {
  const cachedData = caches.length > 0 ? codeCache(file, caches) : undefined;
  const script = new (require('node:vm').Script)(readFileSync(file, 'utf8'), { filename: file, cachedData });
  scripts.set(file, script);
  const cache = caches.length > 0;
  const requireHere = (id) => {
    // Built-ins first and without a regular expression: the bundle asks for a dozen of them as it loads.
    if (id.startsWith('node:')) return require(id);
    if (id.startsWith(VENDOR)) return vendor(id.slice(VENDOR.length), cache);
    if (id.startsWith('./cli.cjs?')) return moduleOf('cli', id.slice('./cli.cjs?'.length), cache);
    if (id.startsWith('./run.cjs?')) return moduleOf('run', id.slice('./run.cjs?'.length), cache);
    // Other built-ins, and better-sqlite3 from the package's node_modules, which this file finds as well.
    return require(id);
  };
  // What a package asks Node to find (the addon of dist/vendor/better-sqlite3.cjs), found from here as its require finds it.
  requireHere.resolve = require.resolve;
  const mod = { exports: {} };
  parts.set(file, mod.exports);
  script.runInThisContext().call(mod.exports, mod.exports, requireHere, mod, file, dirname(file));
  parts.set(file, mod.exports);
  return mod.exports;
}

/** The exports of module `key` of cli.cjs (its __core) or run.cjs (loaded on first use, with its cache). */
function moduleOf(part, key, cache) {
  const id = `${part}:${key}`;
  if (!given.has(id)) {
    const exports = part === 'cli' ? parts.get(CLI).__core : (parts.get(RUN) ?? run(RUN, cache ? [...(command ? [`${RUN}.${command}.cache`] : []), `${RUN}.cache`] : []));
    const module = exports[key];
    if (module === undefined) throw new Error(`tenders: dist/${part}.cjs has no module ${key}: run npm run build`);
    given.set(id, module());
  }
  return given.get(id);
}

/** The first of `caches` that exists and is not older than `file`. */
function codeCache(file, caches) {
  const built = statSync(file).mtimeMs;
  for (const cache of caches) {
    try {
      if (statSync(cache).mtimeMs >= built) return (cacheUsed.set(file, cache), readFileSync(cache));
    } catch {
      // None (a build that made none, a word that names no command): the next, or compiled as usual.
    }
  }
  return undefined;
}

/** The vendor files with WebAssembly in them: undici's, whose HTTP parser is llhttp (baselineWasm). */
const WASM = new Set(['undici.cjs']);
/** Whether baselineWasm has set its flag in this process: each vendor file has a cache for either state. */
let liftoffOnly = false;

function vendor(name, cache) {
  if (!vendored.has(name)) {
    if (WASM.has(name)) baselineWasm();
    const file = join(DIST, 'vendor', name);
    vendored.set(name, run(file, cache ? [vendorCache(file)] : []));
  }
  return vendored.get(name);
}

/** The code cache of vendor file `file` for this state of the flag (the build makes both, scripts/build.js). */
const vendorCache = (file) => `${file}${liftoffOnly ? '.liftoff' : ''}.cache`;

/**
 * undici parses HTTP with llhttp compiled to WebAssembly. V8 compiles it with its baseline
 * compiler, then soon recompiles its hot parser function with TurboFan in the background: about
 * 70 ms of CPU and 40 MB of memory in every run that makes a request, more than a search of one
 * page costs otherwise, for a parser that is not measurably faster afterwards (an export of 50 000
 * tenders took as much CPU, and 20 MB less memory, without it; docs/performance.md). So WebAssembly
 * stays on the baseline compiler, where that compiler does all of WebAssembly (x64, arm64).
 * Set before undici's file compiles, and only then: node:v8, which sets it, costs 2 ms to load,
 * which a command that makes no request (show --local) does not pay. V8 accepts a code cache only
 * under the flags it was made with: the CLI's files are compiled before it is set, and a vendor
 * file takes the cache made for the state it finds (vendorCache).
 */
function baselineWasm() {
  if (liftoffOnly || (process.arch !== 'x64' && process.arch !== 'arm64')) return;
  require('node:v8').setFlagsFromString('--liftoff-only');
  liftoffOnly = true;
}

/**
 * The CLI's exports (main, execute, manualPage, silentRun) for a run of `args`; `cache: false`
 * compiles it afresh (the build). The build saves V8's code of the CLI as a run of each command
 * leaves it (cli.cjs.search.cache: a dry run of search) and as the manual page and dry runs of
 * every command leave it (cli.cjs.cache). A run that names a command takes that command's, which
 * holds no code of the others and none of the help: less for V8 to read. Help, and any other run,
 * takes the whole one. The first word that is not a flag is taken for the command: a root flag's
 * value before it (--base-url URL search) costs the command's cache, nothing else. run.cjs has a
 * cache of its own for show (run.cjs.show.cache, a real show's), else the build's (run.cjs.cache).
 */
function loadCli({ cache = true, args = [] } = {}) {
  const word = args.find((arg) => !arg.startsWith('-'));
  const help = args.includes('--help') || args.includes('-h');
  command = word !== undefined && !help && /^[a-z]+$/.test(word) ? word : undefined;
  return run(CLI, cache ? [...(command ? [`${CLI}.${command}.cache`] : []), `${CLI}.cache`] : []);
}

module.exports = { loadCli, scripts, cacheUsed, vendor, vendorCache, moduleOf, CLI, RUN };

if (require.main === module) {
  const args = process.argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    // `tenders --version` is run by scripts to probe the tool: answer it without loading the CLI.
    process.stdout.write(`${require('../dist/version.cjs').VERSION}\n`);
  } else {
    loadCli({ args })
      .main(process.argv)
      .then((code) => {
        // Interrupted: output still queued for a reader who does not read must not keep us alive.
        if (code >= 128) process.exit(code);
        process.exitCode = code;
      });
  }
}
