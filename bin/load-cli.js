// Loads dist/cli.cjs with the V8 code cache the build made beside it (dist/cli.cjs.cache).
// Compiling the bundle is most of what a run's start-up costs, and Node 20 has no compile
// cache of its own (Node 22's module.enableCompileCache). A cache V8 does not accept
// (another Node version, other V8 flags) is ignored: the bundle is compiled as usual.
// V8 checks the source's length, not its text: a bundle changed after the build (newer
// than its cache) is compiled as usual too.
const { readFileSync, statSync } = require('node:fs');
const Module = require('node:module');
const { dirname, join } = require('node:path');
const vm = require('node:vm');

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
  const script = new vm.Script(Module.wrap(readFileSync(FILE, 'utf8')), { filename: FILE, cachedData });
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, Module.createRequire(FILE), module, FILE, dirname(FILE));
  return { cli: module.exports, script };
}

module.exports = { loadCli, CACHE };
