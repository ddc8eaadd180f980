import { isAbsolute, join } from 'node:path';
import { UsageError } from '../../errors.js';
import type { Env } from '../../io.js';
import { parseSavedName } from '../../query/validate.js';

export const parseWatchName = (name: string): string => parseSavedName('watch', name);

/**
 * Where watches live: $TENDERS_STATE_DIR, else $XDG_STATE_HOME/tenders/watches
 * (the XDG spec ignores a relative one), else ~/.local/state/tenders/watches.
 */
export function watchDir(env: Env): string {
  if (env.TENDERS_STATE_DIR) return env.TENDERS_STATE_DIR;
  if (env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME)) return join(env.XDG_STATE_HOME, 'tenders', 'watches');
  if (env.HOME) return join(env.HOME, '.local', 'state', 'tenders', 'watches');
  throw new UsageError('no place for watch state: set TENDERS_STATE_DIR (or HOME, or XDG_STATE_HOME) to a directory');
}

/** Where temporary files go: $TMPDIR, POSIX's variable for it, when absolute (a relative one would move with the working directory); else /tmp. */
export function tempDir(env: Env): string {
  const dir = env.TMPDIR?.replace(/(.)\/+$/, '$1');
  return dir && isAbsolute(dir) ? dir : '/tmp';
}

export const STATE_SUFFIX = '.watch';

/** The files of one watch: its state, and the next state being written (its lock is the state's, see lockPath). */
export interface WatchFiles {
  state: string;
  temp: string;
}

export function watchFiles(dir: string, name: string): WatchFiles {
  const state = join(dir, `${name}${STATE_SUFFIX}`);
  return { state, temp: `${state}.tmp` };
}
