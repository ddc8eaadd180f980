import { RunError } from '../../errors.js';
import type { IO } from '../../io.js';
import { nodeFs, type FileSystem } from '../../files/fs.js';
import { acquireLock } from '../../files/lock.js';
import { formatCounted } from '../../model/numbers.js';
import type { SavedSearchInfo } from '../../model/saved-search.js';
import type { Reporter } from '../../output/terminal/reporter.js';
import { writeList } from '../list-output.js';
import type { OutputPlan } from '../plan.js';
import { STATE_SUFFIX, watchFiles } from './location.js';
import { describeQuery } from './query.js';
import { readEnds, StateError } from './state.js';

export const LIST_COLUMNS = ['name', 'query', 'lastRun', 'tenders'];

/** A watch's row of `watch --list`, wherever it is kept: its saved search, the query as flags. */
export function listRow(watch: SavedSearchInfo): Record<string, unknown> {
  return { name: watch.name, query: describeQuery(watch.query), lastRun: watch.lastRun, tenders: watch.tenders };
}

/** The names of the watches whose state is a file in `dir`, sorted. */
export async function stateFileNames(dir: string, fs: FileSystem = nodeFs): Promise<string[]> {
  return (await fs.readdir(dir).catch(() => [] as string[]))
    .filter((file) => file.endsWith(STATE_SUFFIX) && !file.startsWith('.'))
    .map((file) => file.slice(0, -STATE_SUFFIX.length))
    .sort();
}

/** `watch --list`: one row per saved watch (name, query as flags, last run, tenders known), by name. */
export async function runWatchList(dir: string, output: OutputPlan, io: IO, signal: AbortSignal, say: Reporter, fs: FileSystem = nodeFs): Promise<void> {
  const names = await stateFileNames(dir, fs);
  const rows: Record<string, unknown>[] = [];
  for (const name of names) {
    const file = watchFiles(dir, name).state;
    try {
      const { header, summary } = await readEnds(file, fs);
      rows.push({ ...listRow({ ...header, name, lastRun: summary.lastRun, tenders: summary.tenders }), file });
    } catch (err) {
      if (!(err instanceof StateError)) throw err;
      say.warn(err.message);
    }
  }
  if (rows.length === 0) {
    say.hint(`No saved watches in ${dir}.`);
    return;
  }
  await writeList(rows, LIST_COLUMNS, output, io, signal, fs, say);
  say.hint(`${formatCounted(rows.length, 'watches')} in ${dir}.`);
}

/** `watch NAME --forget`: deletes its state (never under a running watch). */
export async function runWatchForget(dir: string, name: string, say: Reporter, fs: FileSystem = nodeFs): Promise<void> {
  const files = watchFiles(dir, name);
  const release = await acquireLock(files.state, { fs }).catch((err: unknown) => {
    // No directory: no watch either.
    if ((err as { cause?: NodeJS.ErrnoException }).cause?.code === 'ENOENT') return undefined;
    throw err;
  });
  try {
    const removed = await fs.rm(files.state).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return false;
        throw new RunError(`cannot delete ${files.state}: ${err.message}`, { cause: err });
      },
    );
    if (!removed) throw new RunError(`there is no watch named ${name} in ${dir} (see tenders watch --list)`);
    await fs.rm(files.temp, { force: true });
    say.hint(`watch ${name} forgotten (${files.state} deleted)`);
  } finally {
    await release?.();
  }
}

