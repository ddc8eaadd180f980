import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/**
 * Each test's own world, set up for every test file (vitest.config.ts
 * setupFiles): a temporary directory of its own, state and home directories
 * inside it for the CLIs it spawns, and a signal that ends those CLIs when
 * the test ends, passed, failed or timed out. A test that timed out must not
 * go on writing into the next test's directory: its processes are killed and
 * its pending runs reject.
 */

interface Current {
  name: string;
  ended: AbortController;
  dir?: string;
}

let current: Current | undefined;
let outsideTests: string | undefined;

beforeEach((ctx) => {
  const ended = new AbortController();
  ctx.signal.addEventListener('abort', () => ended.abort(new Error(`the test "${ctx.task.name}" was stopped (${String(ctx.signal.reason)})`)), { once: true });
  current = { name: ctx.task.name, ended };
});

afterEach(() => {
  current?.ended.abort(new Error(`the test "${current.name}" ended`));
  current = undefined;
});

/**
 * This test's own directory, made on first use, inside the run's directory
 * (removed when the run ends). Outside a test (beforeAll), one directory for
 * the file.
 */
export function testDir(): string {
  if (current === undefined) return (outsideTests ??= mkdtempSync(join(tmpdir(), 'file-')));
  return (current.dir ??= mkdtempSync(join(tmpdir(), `${current.name.slice(0, 30).replace(/\W+/g, '-')}-`)));
}

/** Aborted when this test ends; undefined outside a test. */
export function testSignal(): AbortSignal | undefined {
  return current?.ended.signal;
}

/**
 * The variables that keep a spawned CLI inside this test's directory: its
 * watch state (TENDERS_STATE_DIR) and home (HOME, for ~/.local/state, a
 * pager's history). Neither is made until something writes there.
 */
export function testEnv(): Record<string, string | undefined> {
  const dir = testDir();
  return { TENDERS_STATE_DIR: join(dir, 'state'), HOME: join(dir, 'home'), XDG_STATE_HOME: undefined };
}
