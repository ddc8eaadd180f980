import { NoCopyError, RunError } from '../errors.js';
import type { IO } from '../io.js';
import { formatCounted } from '../model/numbers.js';
import { withoutPasswords } from '../model/redact.js';
import { nodeFs, type FileSystem } from '../files/fs.js';
import type { Reporter } from '../output/terminal/reporter.js';
import { targetOptions, type StoreTarget } from '../store/location.js';
import { openStore } from '../store/open.js';
import { isPostgresLocation, type Store } from '../store/store.js';
import { writeList } from './list-output.js';
import type { OutputPlan } from './plan.js';
import type { SavedQuery } from '../model/saved-search.js';
import { describeQuery } from './watch/query.js';

const LIST_COLUMNS = ['name', 'query', 'service', 'lastRun', 'tenders', 'complete'];

async function withStore<T>(db: StoreTarget, mode: 'read' | 'write', use: (store: Store) => Promise<T>, signal?: AbortSignal): Promise<T> {
  // Reading here is of the syncs' definitions (a list, whether a copy is there): an older copy too.
  const store = await openStore(db.location, { mode, definitionsOnly: mode === 'read', ...targetOptions(db), signal });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

/** `sync --list`: one row per sync (name, query as flags, service, end of its last run, tenders held, whether that run completed), by name. */
export async function runSyncList(db: StoreTarget, output: OutputPlan, io: IO, signal: AbortSignal, say: Reporter, fs: FileSystem = nodeFs): Promise<void> {
  const syncs = await withStore(db, 'read', (store) => store.listSyncs(), signal);
  if (syncs.length === 0) {
    say.hint(`No syncs in ${withoutPasswords(db.location)}.`);
    return;
  }
  const rows = syncs.map((sync) => ({
    name: sync.name,
    query: describeQuery(sync.query as SavedQuery),
    service: sync.service,
    lastRun: sync.lastRun.endedAt,
    tenders: sync.tenders,
    complete: sync.lastRun.complete,
    lastComplete: sync.lastComplete,
    created: sync.created,
  }));
  await writeList(rows, LIST_COLUMNS, output, io, signal, fs, say);
  say.hint(`${formatCounted(rows.length, 'syncs')} in ${withoutPasswords(db.location)}.`);
}

/** `sync NAME --forget`: the sync, its runs and changes, and the tenders only it held (never under a running sync). */
export async function runSyncForget(db: StoreTarget, name: string, say: Reporter, fs: FileSystem = nodeFs): Promise<void> {
  // A sync opens the copy for writing, which would create it (a file, a schema): a missing one has nothing to forget.
  if (!(await copyExists(db, fs))) throw new RunError(`no local copy at ${withoutPasswords(db.location)}: there is no sync named ${name} to forget`);
  const { tenders } = await withStore(db, 'write', (store) => store.forget(name));
  say.hint(`sync ${name} forgotten (${formatCounted(tenders, 'tenders')} only it held removed)`);
}

/** Whether the copy is there: its file, or (read, which creates nothing) its tables; a failure to tell is the write's to report. */
async function copyExists(db: StoreTarget, fs: FileSystem): Promise<boolean> {
  if (!isPostgresLocation(db.location)) return fs.stat(db.location).then(() => true, () => false);
  return withStore(db, 'read', async () => true).catch((err: unknown) => !(err instanceof NoCopyError));
}
