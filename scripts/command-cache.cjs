// node scripts/command-cache.cjs DIST NAME ARG...: runs `tenders ARG...` (a dry run of command NAME, stdout
// to /dev/null) through bin/tenders.js's own entry from DIST (the build's directory), then saves V8's code of its cli.cjs as that run
// leaves it: dist/cli.cjs.NAME.cache, which bin/tenders.js hands to V8 when a run names NAME. Run by
// scripts/build.js, one process per command: V8 saves every function a process compiled.
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { loadCli, scripts, useDist } = require('../bin/tenders.js');

const [dist, name, ...args] = process.argv.slice(2);
useDist(dist);
const CLI = join(dist, 'cli.cjs');
loadCli({ cache: false })
  .main([process.argv[0], 'tenders', ...args])
  .then((code) => {
    if (code !== 0) throw new Error(`tenders ${args.join(' ')} exited ${code}`);
    writeFileSync(`${CLI}.${name}.cache`, scripts.get(CLI).createCachedData());
  });
