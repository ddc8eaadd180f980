import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { scaled } from './test/support/scale.js';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  // src/ runs as it is here: a sync's SQLite run is hosted in the test's own thread (src/store/sqlite-run-client.ts).
  // The CPV vocabulary is read from the repository (src/files/cpv-file.ts).
  define: {
    __TENDERS_VERSION__: JSON.stringify(version),
    __TENDERS_SQLITE_WORKER__: 'null',
    __TENDERS_SERVE_WORKER__: 'null',
    __TENDERS_CPV_FILE__: JSON.stringify(fileURLToPath(new URL('./data/cpv-2008.tsv', import.meta.url))),
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-tmp.ts'],
    // Each test's own directory, CLI environment and end signal; Buffers compared as bytes.
    setupFiles: ['test/support/test-context.ts', 'test/support/byte-equality.ts', 'test/support/cpu-log.ts'],
    // .ci/run counts skipped tests from a JSON report; vitest's own output stays as it is.
    ...(process.env.TENDERS_TEST_REPORT
      ? { reporters: ['default', 'json'], outputFile: { json: process.env.TENDERS_TEST_REPORT } }
      : {}),
    pool: 'forks',
    maxWorkers: 2,
    // A worker runs file after file without starting afresh: a fresh worker per file
    // (vitest's default) imported vitest, the support modules and src/ again each
    // time, about 1 CPU-s a file. Each file still gets its own module state (its
    // test-context, its sandbox); no test changes globals it does not restore.
    isolate: false,
    // Limits for a stuck test, not budgets: the slowest e2e test takes a few
    // seconds idle; a loaded machine stretches them (test/support/scale.ts).
    testTimeout: scaled(60_000),
    hookTimeout: scaled(60_000),
    // `npm run coverage`: what the in-process tests alone cover (test/e2e spawns the
    // built binary, whose lines v8 cannot attribute to src/).
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/sandbox/**'],
      reporter: ['text-summary', 'text'],
      thresholds: { lines: 95 },
    },
  },
});
