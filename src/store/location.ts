import { isAbsolute, join } from 'node:path';
import { UsageError } from '../errors.js';
import type { Env } from '../io.js';

/**
 * Where the local copy lives: --db, else $TENDERS_DB, else
 * $XDG_DATA_HOME/tenders/tenders.db (the XDG spec ignores a relative one),
 * else ~/.local/share/tenders/tenders.db. A postgres:// URL is kept as it is.
 */
export function storeLocation(flag: string | undefined, env: Env): string {
  const given = flag ?? env.TENDERS_DB;
  if (given !== undefined && given !== '') return given;
  if (env.XDG_DATA_HOME && isAbsolute(env.XDG_DATA_HOME)) return join(env.XDG_DATA_HOME, 'tenders', 'tenders.db');
  if (env.HOME) return join(env.HOME, '.local', 'share', 'tenders', 'tenders.db');
  throw new UsageError('no place for the local copy: give --db PATH, or set TENDERS_DB (or HOME, or XDG_DATA_HOME)');
}
