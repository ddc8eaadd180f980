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

const STATE = Symbol.for('tenders.test-context');

interface Current {
  name: string;
  ended: AbortController;
  dir?: string;
}

/**
 * One state per worker process, not per instance of this module: workers run
 * file after file (vitest.config.ts `isolate: false`), and this setup file is
 * evaluated again for each file while support modules that import it (cli.ts)
 * keep the instance of the first. Each evaluation starts a new file.
 */
interface State {
  current?: Current;
  /** The directory of this file's code outside tests (beforeAll). */
  outsideTests?: string;
}
const state: State = ((globalThis as { [STATE]?: State })[STATE] ??= {});
state.current = undefined;
state.outsideTests = undefined;

beforeEach((ctx) => {
  const ended = new AbortController();
  ctx.signal.addEventListener('abort', () => ended.abort(new Error(`the test "${ctx.task.name}" was stopped (${String(ctx.signal.reason)})`)), { once: true });
  state.current = { name: ctx.task.name, ended };
});

afterEach(() => {
  state.current?.ended.abort(new Error(`the test "${state.current.name}" ended`));
  state.current = undefined;
});

/**
 * This test's own directory, made on first use, inside the run's directory
 * (removed when the run ends). Outside a test (beforeAll), one directory for
 * the file.
 */
export function testDir(): string {
  const { current } = state;
  if (current === undefined) return (state.outsideTests ??= mkdtempSync(join(tmpdir(), 'file-')));
  return (current.dir ??= mkdtempSync(join(tmpdir(), `${current.name.slice(0, 30).replace(/\W+/g, '-')}-`)));
}

/** Aborted when this test ends; undefined outside a test. */
export function testSignal(): AbortSignal | undefined {
  return state.current?.ended.signal;
}

/**
 * The variables that keep a spawned CLI inside this test's directory: its
 * watch state (TENDERS_STATE_DIR) and home (HOME, for ~/.local/state, a
 * pager's history, ~/.config/tenders/config.toml). Neither is made until
 * something writes there; no config file of the machine's is read.
 */
export function testEnv(): Record<string, string | undefined> {
  const dir = testDir();
  return { TENDERS_STATE_DIR: join(dir, 'state'), HOME: join(dir, 'home'), XDG_STATE_HOME: undefined, XDG_CONFIG_HOME: undefined, TENDERS_CONFIG: undefined, TENDERS_PROFILE: undefined };
}
