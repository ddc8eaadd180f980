import { statSync } from 'node:fs';
import type { Store } from '../store/store.js';
import { Unavailable } from './request-limits.js';
import { leasedStore } from './store-calls.js';

/** An open copy and the file it was opened from. */
interface Opened {
  store: Store;
  file: string;
  /** Calls running on it: an old copy is closed once the last one ends. */
  calls: number;
  retired: boolean;
}

/** dev:inode of `path`, or undefined when there is no file. */
function fileOf(path: string): string | undefined {
  try {
    const s = statSync(path);
    return `${s.dev}:${s.ino}`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * A SQLite copy served while syncs come and go: each call first looks at the
 * file (one stat): a new file at the path (a first sync puts a whole new copy
 * in place, sqlite-new-copy.ts) is opened and served from then on, the old one
 * closed when its last call ends; no file (deleted, being restored) is a 503
 * until one is back. An open connection would go on reading a deleted file's
 * inode, which is why the path is looked at rather than the connection.
 */
export function followedCopy(path: string, first: Store, open: () => Promise<Store>): Store {
  let current: Opened = { store: first, file: fileOf(path) ?? '', calls: 0, retired: false };
  let opening: Promise<Opened> | undefined;
  const retire = (old: Opened) => {
    old.retired = true;
    if (old.calls === 0) void old.store.close();
  };
  const reopen = (file: string): Promise<Opened> =>
    (opening ??= open()
      .then((store) => {
        retire(current);
        current = { store, file, calls: 0, retired: false };
        return current;
      })
      .catch((): never => {
        throw new Unavailable('the local copy cannot be opened now', 5);
      })
      .finally(() => (opening = undefined)));
  const store = leasedStore(first, async () => {
    const file = fileOf(path);
    if (file === undefined) throw new Unavailable('the local copy is not there (moved or deleted): ask again once it is back', 5);
    const used = file === current.file ? current : await reopen(file);
    used.calls++;
    return {
      store: used.store,
      check: () => undefined,
      fail: (err) => err as Error,
      done: () => {
        used.calls--;
        if (used.retired && used.calls === 0) void used.store.close();
      },
    };
  });
  return new Proxy(store, { get: (target, prop) => (prop === 'close' ? () => current.store.close() : Reflect.get(target, prop, target)) });
}
