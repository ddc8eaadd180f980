import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { UsageError } from '../errors.js';
import type { Env } from '../io.js';

/**
 * The config file: $TENDERS_CONFIG, else $XDG_CONFIG_HOME/tenders/config.toml
 * (the XDG spec ignores a relative one), else ~/.config/tenders/config.toml;
 * undefined with neither HOME nor XDG_CONFIG_HOME.
 */
export function configPath(env: Env): string | undefined {
  if (env.TENDERS_CONFIG) return env.TENDERS_CONFIG;
  if (env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME)) return join(env.XDG_CONFIG_HOME, 'tenders', 'config.toml');
  if (env.HOME) return join(env.HOME, '.config', 'tenders', 'config.toml');
  return undefined;
}

/**
 * The config file's text, or undefined when there is none. Read on every
 * start, so synchronously and in one system call: an absent file costs a
 * failed open, and no promise machinery is loaded for it (test/e2e/startup.test.ts).
 */
export function readConfigText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new UsageError(`cannot read the config file ${file}: ${(err as Error).message}`);
  }
}
