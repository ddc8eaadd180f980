import { isPostgresLocation, type OpenOptions, type Store } from './store.js';

/** What ./postgres.ts exports (written by the PostgreSQL task). */
type OpenPostgres = (url: string, options: OpenOptions) => Promise<Store>;

// Until ./postgres.ts exists the specifier is not a literal, so this compiles
// without it; the PostgreSQL task replaces it with `await import('./postgres.js')`
// (a literal, which esbuild needs to bundle the module).
const POSTGRES_MODULE = './postgres.js';

/**
 * Opens the copy at `location`: a postgres:// or postgresql:// URL opens the
 * PostgreSQL engine, loaded only then; anything else is a SQLite file path.
 * Unusable targets are UsageErrors (exit 2) before anything is touched: not a
 * database, a directory, read-only (for writing), a newer schema version.
 */
export async function openStore(location: string, options: OpenOptions): Promise<Store> {
  if (isPostgresLocation(location)) {
    const { openPostgresStore } = (await import(POSTGRES_MODULE)) as { openPostgresStore: OpenPostgres };
    return openPostgresStore(location, options);
  }
  const { openSqliteStore } = await import('./sqlite.js');
  return openSqliteStore(location, options);
}
