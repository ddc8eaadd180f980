import { isPostgresLocation, type OpenOptions, type Store } from './store.js';
import type { WatchOpenOptions, WatchStore } from './watches.js';

/**
 * Opens the copy at `location`: a postgres:// or postgresql:// URL opens the
 * PostgreSQL engine, loaded only then; anything else is a SQLite file path.
 * Unusable targets are UsageErrors (exit 2) before anything is touched: not a
 * database, a directory, read-only (for writing), a newer schema version.
 */
export async function openStore(location: string, options: OpenOptions): Promise<Store> {
  if (isPostgresLocation(location)) {
    const { openPostgresStore } = await import('./postgres.js');
    return openPostgresStore(location, options);
  }
  const { openSqliteStore } = await import('./sqlite.js');
  return openSqliteStore(location, options);
}

/**
 * Opens the watches of the PostgreSQL copy at `location` (a SQLite copy keeps
 * none: `watch --db FILE` is refused before this). `write` makes their tables
 * where missing; `read` makes nothing, and a copy without them has no watches.
 */
export async function openWatches(location: string, options: WatchOpenOptions): Promise<WatchStore> {
  const { PostgresWatches } = await import('./postgres-watches.js');
  return PostgresWatches.open(location, options);
}
