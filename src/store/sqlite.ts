import type { OpenOptions, Store } from './store.js';

/** The SQLite engine (being written: this commit only fixes the interface). */
export async function openSqliteStore(_path: string, _options: OpenOptions): Promise<Store> {
  throw new Error('the SQLite store is not written yet');
}
