#!/usr/bin/env node
// Bundles the CLI and the sandbox into dist/ with esbuild: one file to load
// instead of a hundred (undici alone has that many), which is most of the
// start-up a run pays. Lazily imported parts (formats, ora, the walk) stay
// separate chunks, so a command loads only what it uses. Types are checked by
// `tsc --noEmit` before this runs.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: ['src/cli.ts', 'src/version.ts', 'src/sandbox/main.ts'],
  outdir: 'dist',
  outbase: 'src',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  packages: 'bundle',
  // A native addon finds its compiled .node file from its own package directory: loaded from node_modules, not bundled.
  external: ['better-sqlite3'],
  // Bundled CommonJS (undici, commander) calls require(): give ESM one, made on its first call
  // (most chunks never call it, and making one per chunk costs every start-up).
  banner: {
    js: "import { createRequire as __tendersRequire } from 'node:module'; let __tendersReq; const require = (id) => (__tendersReq ??= __tendersRequire(import.meta.url))(id);",
  },
  // Chunks beside cli.js, so code in them finds ../package.json as src/ does.
  chunkNames: '[name]-[hash]',
  define: { __TENDERS_VERSION__: JSON.stringify(version) },
  logLevel: 'warning',
});

// The manual page, from the program just built: every command and flag is in it.
const { manualPage } = await import('../dist/cli.js');
writeFileSync(new URL('../dist/tenders.1', import.meta.url), await manualPage());
