import { isAbsolute, join } from 'node:path';
import { UsageError } from '../errors.js';
import type { Env } from '../io.js';
import type { OpenOptions } from './store.js';

/**
 * Where the local copy lives: --db, else $TENDERS_DB, else
 * $XDG_DATA_HOME/tenders/tenders.db (the XDG spec ignores a relative one),
 * else ~/.local/share/tenders/tenders.db. A postgres:// URL is kept as it is.
 */
/**
 * The copy a command names, and how to reach it: where it is (storeLocation),
 * and for a postgres:// one the schema ($TENDERS_DB_SCHEMA) and the libpq
 * variables of the command's environment (OpenOptions.env), so the store reads
 * them from the IO seam, not from the process.
 */
export interface StoreTarget {
  location: string;
  schema?: string;
  env: NonNullable<OpenOptions['env']>;
}

/** The libpq variables a postgres:// copy honours, and HOME for ~/.pgpass. */
export const LIBPQ_VARIABLES = ['PGHOST', 'PGPORT', 'PGUSER', 'PGPASSWORD', 'PGDATABASE', 'PGSSLMODE', 'PGPASSFILE', 'HOME'] as const;

export function storeTarget(flag: string | undefined, env: Env): StoreTarget {
  const libpq = Object.fromEntries(LIBPQ_VARIABLES.filter((name) => env[name] !== undefined).map((name) => [name, env[name]]));
  return { location: storeLocation(flag, env), schema: env.TENDERS_DB_SCHEMA || undefined, env: libpq };
}

/** OpenOptions for the copy `target` names. */
export function targetOptions(target: StoreTarget): Pick<OpenOptions, 'schema' | 'env'> {
  return { schema: target.schema, env: target.env };
}

export function storeLocation(flag: string | undefined, env: Env): string {
  const given = flag ?? env.TENDERS_DB;
  if (given !== undefined && given !== '') return given;
  if (env.XDG_DATA_HOME && isAbsolute(env.XDG_DATA_HOME)) return join(env.XDG_DATA_HOME, 'tenders', 'tenders.db');
  if (env.HOME) return join(env.HOME, '.local', 'share', 'tenders', 'tenders.db');
  throw new UsageError('no place for the local copy: give --db PATH, or set TENDERS_DB (or HOME, or XDG_DATA_HOME)');
}
