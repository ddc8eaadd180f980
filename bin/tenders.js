#!/usr/bin/env node
// CommonJS, like the bundle it loads (bin/package.json says so): Node's ES module
// loader is never started, which a run would pay for before doing anything.
const args = process.argv.slice(2);

if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // `tenders --version` is run by scripts to probe the tool: answer it without loading the CLI.
  process.stdout.write(`${require('../dist/version.cjs').VERSION}\n`);
} else {
  require('./load-cli.js')
    .loadCli()
    .cli.main(process.argv)
    .then((code) => {
      // Interrupted: output still queued for a reader who does not read must not keep us alive.
      if (code >= 128) process.exit(code);
      process.exitCode = code;
    });
}
