import { UsageError } from '../errors.js';
import { withoutPasswords } from '../model/redact.js';
import { targetOptions, type StoreTarget } from '../store/location.js';
import { openStore } from '../store/open.js';
import type { OpenOptions, Store } from '../store/store.js';

/**
 * Opens the local copy for reading: a copy no sync has made yet is a
 * RunError from the store ("run tenders sync first"), nothing created; a
 * sync NAME it does not know is a UsageError listing the syncs it has.
 */
export async function openLocalCopy(
  db: StoreTarget,
  sync: string | undefined,
  signal?: AbortSignal,
  /** tenders serve's bounds of its PostgreSQL reads, a download's unmapped file (OpenOptions). */
  bounds: Pick<OpenOptions, 'connections' | 'statementTimeoutMs' | 'unmapped'> = {},
): Promise<Store> {
  const { location } = db;
  // Ctrl-C ends a read waiting on the server (a table someone locked) at once.
  const store = await openStore(location, { mode: 'read', ...targetOptions(db), ...bounds, signal });
  try {
    if (sync !== undefined && !(await store.getSync(sync))) {
      const known = (await store.listSyncs()).map((s) => s.name);
      throw new UsageError(`no sync named '${sync}' in ${withoutPasswords(location)}${known.length ? `: the syncs are ${known.join(', ')}` : ': it has no syncs'}`);
    }
    return store;
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** Runs `body` with the copy open for reading, closed however it ends. */
export async function withLocalCopy<T>(db: StoreTarget, sync: string | undefined, signal: AbortSignal, body: (store: Store) => Promise<T>): Promise<T> {
  const store = await openLocalCopy(db, sync, signal);
  try {
    return await body(store);
  } finally {
    await store.close();
  }
}
