// Loads dist/cli.cjs with the V8 code cache the build made beside it (dist/cli.cjs.cache).
// Compiling the bundle is most of what a run's start-up costs, and Node 20 has no compile
// cache of its own (Node 22's module.enableCompileCache). A cache V8 does not accept
// (another Node version, other V8 flags) is ignored: the bundle is compiled as usual.
// V8 checks the source's length, not its text: a bundle changed after the build (newer
// than its cache) is compiled as usual too.
//
// The bundle is a function expression already (scripts/build.js): no Module.wrap, so neither a
// copy of its text nor node:module (with which Node loads its ES module loader) on every run.
const { readFileSync, statSync } = require('node:fs');
const { dirname, join } = require('node:path');
const vm = require('node:vm');

// The CommonJS loader's own Module class (what node:module exports), without loading node:module.
const { createRequire } = module.constructor;

const FILE = join(__dirname, '../dist/cli.cjs');
const CACHE = `${FILE}.cache`;

/** The CLI's exports (main, execute, manualPage), and the compiled script (the build makes the cache from it). */
function loadCli({ cache = true } = {}) {
  let cachedData;
  try {
    if (cache && statSync(CACHE).mtimeMs >= statSync(FILE).mtimeMs) cachedData = readFileSync(CACHE);
  } catch {
    // No cache (a build that made none): compiled as usual.
  }
  const script = new vm.Script(readFileSync(FILE, 'utf8'), { filename: FILE, cachedData });
  const cli = { exports: {} };
  script.runInThisContext().call(cli.exports, cli.exports, createRequire(FILE), cli, FILE, dirname(FILE));
  return { cli: cli.exports, script };
}

module.exports = { loadCli, CACHE };
