#!/usr/bin/env node
const args = process.argv.slice(2);

// `tenders --version` is run by scripts to probe the tool: answer it without loading the CLI.
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { VERSION } = await import('../dist/version.js');
  process.stdout.write(`${VERSION}\n`);
} else {
  const { main } = await import('../dist/cli.js');
  const code = await main(process.argv);
  // Interrupted: output still queued for a reader who does not read must not keep us alive.
  if (code >= 128) process.exit(code);
  process.exitCode = code;
}
