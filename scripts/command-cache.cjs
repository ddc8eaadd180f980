// node scripts/command-cache.cjs NAME ARG...: runs `tenders ARG...` (a dry run of command NAME, stdout
// to /dev/null) through bin/tenders.js's own entry, then saves V8's code of dist/cli.cjs as that run
// leaves it: dist/cli.cjs.NAME.cache, which bin/tenders.js hands to V8 when a run names NAME. Run by
// scripts/build.js, one process per command: V8 saves every function a process compiled.
const { renameSync, writeFileSync } = require('node:fs');
const { loadCli, scripts, CLI } = require('../bin/tenders.js');

const [name, ...args] = process.argv.slice(2);
loadCli({ cache: false })
  .main([process.argv[0], 'tenders', ...args])
  .then((code) => {
    if (code !== 0) throw new Error(`tenders ${args.join(' ')} exited ${code}`);
    // Written beside and renamed: a run reading it meanwhile finds the old cache or the new, whole.
    const cache = `${CLI}.${name}.cache`;
    writeFileSync(`${cache}.${process.pid}.tmp`, scripts.get(CLI).createCachedData());
    renameSync(`${cache}.${process.pid}.tmp`, cache);
  });
