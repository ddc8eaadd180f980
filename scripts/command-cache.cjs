// node scripts/command-cache.cjs NAME PARTS ARG...: runs `tenders ARG...` (a run of command NAME, stdout
// to /dev/null) through bin/tenders.js's own entry, then saves V8's code of dist/cli.cjs as that run
// leaves it: dist/cli.cjs.NAME.cache, which bin/tenders.js hands to V8 when a run names NAME; with PARTS
// `cli+run`, dist/run.cjs.NAME.cache of dist/run.cjs too. Run by scripts/build.js, one process per
// command: V8 saves every function a process compiled.
const { renameSync, writeFileSync } = require('node:fs');
const { loadCli, scripts, CLI, RUN } = require('../bin/tenders.js');

const [name, parts, ...args] = process.argv.slice(2);
loadCli({ cache: false })
  .main([process.argv[0], 'tenders', ...args])
  .then((code) => {
    if (code !== 0) throw new Error(`tenders ${args.join(' ')} exited ${code}`);
    // undici's file sets a V8 flag (bin/tenders.js, baselineWasm), under which no run would accept these caches.
    if ([...scripts.keys()].some((file) => file.endsWith('/vendor/undici.cjs'))) throw new Error(`tenders ${args.join(' ')} loaded undici: its caches would be refused`);
    const save = (file) => {
      // Written beside and renamed: a run reading it meanwhile finds the old cache or the new, whole.
      const cache = `${file}.${name}.cache`;
      writeFileSync(`${cache}.${process.pid}.tmp`, scripts.get(file).createCachedData());
      renameSync(`${cache}.${process.pid}.tmp`, cache);
    };
    save(CLI);
    if (parts === 'cli+run') save(RUN);
  });
