import { RunError } from '../../errors.js';
import type { IO } from '../../io.js';
import { nodeFs, type FileSystem } from '../../files/fs.js';
import { formatCounted } from '../../model/numbers.js';
import type { Reporter } from '../../output/terminal/reporter.js';
import { targetOptions, type StoreTarget } from '../../store/location.js';
import { openWatches } from '../../store/open.js';
import { writeList } from '../list-output.js';
import type { OutputPlan } from '../plan.js';
import { LIST_COLUMNS, listRow, runWatchForget, stateFileNames } from './list.js';
import { recordHeader } from './postgres-place.js';
import { StateError } from './state.js';

/**
 * `watch --list` of the watches a PostgreSQL copy keeps (name, query as
 * flags, last run, tenders known; the copy with NDJSON/JSON), and how many
 * state files in the state directory their next run moves into it.
 */
export async function runCopyWatchList(
  db: StoreTarget,
  dir: string | undefined,
  output: OutputPlan,
  io: IO,
  signal: AbortSignal,
  say: Reporter,
  fs: FileSystem = nodeFs,
): Promise<void> {
  const watches = await openWatches(db.location, { mode: 'read', ...targetOptions(db), signal });
  let rows: Record<string, unknown>[];
  try {
    rows = [];
    for (const w of await watches.list()) {
      try {
        const header = recordHeader(w, `${watches.location} (watch ${w.name})`);
        rows.push({ ...listRow({ ...header, lastRun: w.lastRun, tenders: w.tenders }), db: watches.location });
      } catch (err) {
        if (!(err instanceof StateError)) throw err;
        say.warn(err.message); // a row edited by hand: the others are listed
      }
    }
  } finally {
    await watches.close();
  }
  const kept = new Set(rows.map((row) => row.name));
  const files = dir === undefined ? [] : await stateFileNames(dir, fs);
  const moving = files.filter((name) => !kept.has(name));
  const both = files.filter((name) => kept.has(name));
  if (moving.length) say.hint(`${formatCounted(moving.length, 'watches')} in ${dir} (${moving.join(', ')}) ${moving.length === 1 ? 'moves' : 'move'} into ${watches.location} when ${moving.length === 1 ? 'it runs' : 'they run'} next`);
  if (both.length) say.warn(`${both.join(', ')}: kept both in ${dir} and in ${watches.location}; ${both.length === 1 ? 'its runs are' : 'their runs are'} refused until one is deleted`);
  if (rows.length === 0) {
    say.hint(`No saved watches in ${watches.location}.`);
    return;
  }
  await writeList(rows, LIST_COLUMNS, output, io, signal, fs, say);
  say.hint(`${formatCounted(rows.length, 'watches')} in ${watches.location}.`);
}

/**
 * `watch NAME --forget` of a watch a PostgreSQL copy keeps: deleted under its
 * lock (never under a running watch). One the copy does not have, whose state
 * file would move in, is forgotten there.
 */
export async function runCopyWatchForget(db: StoreTarget, dir: string | undefined, name: string, say: Reporter, fs: FileSystem = nodeFs): Promise<void> {
  const watches = await openWatches(db.location, { mode: 'read', ...targetOptions(db) });
  try {
    const missing = () => new RunError(`there is no watch named ${name} in ${watches.location} (see tenders watch --list)`);
    if (!(await watches.get(name))) {
      if (dir !== undefined && (await stateFileNames(dir, fs)).includes(name)) return await runWatchForget(dir, name, say, fs);
      throw missing();
    }
    const watch = await watches.lock(name);
    try {
      if (!(await watch.forget())) throw missing();
    } finally {
      await watch.release();
    }
    say.hint(`watch ${name} forgotten (deleted from ${watches.location})`);
  } finally {
    await watches.close();
  }
}
