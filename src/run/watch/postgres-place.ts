import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { createExclusive } from '../../files/exclusive-file.js';
import type { FileSystem } from '../../files/fs.js';
import { writeFailure } from '../../files/write-error.js';
import { formatCounted } from '../../model/numbers.js';
import { targetOptions, type StoreTarget } from '../../store/location.js';
import { openWatches } from '../../store/open.js';
import type { WatchRecord, WatchTenderRow } from '../../store/watches.js';
import type { WatchPlan } from '../plan.js';
import type { Session } from '../session.js';
import { watchFiles } from './location.js';
import type { WatchPlace } from './place.js';
import { RunError } from '../../errors.js';
import { headerLine, lineBatches, loadState, parseHeader, readEnds, readHeader, STATE_FORMAT, summaryLine, type StateHeader, type StateSummary } from './state.js';

/**
 * A watch whose state is kept in a PostgreSQL copy (--db or TENDERS_DB): the
 * run holds the watch's advisory lock, reads the state into a file of a work
 * directory of its own (mode 700), runs as a file-kept watch does, and saves
 * the next state into the copy in one transaction. The work directory goes
 * when the run ends; one a killed run left is removed by the next run of the
 * watch (which holds the lock).
 *
 * A watch the copy does not have yet but whose state is a file in the state
 * directory (kept there before its copy was named) is moved in: its run reads
 * the file, and once the copy holds the next state, the file is deleted. A
 * watch kept in both is refused: they may be two people's.
 */
export async function openPostgresPlace(plan: WatchPlan, db: StoreTarget, session: Session): Promise<WatchPlace> {
  const { fs, say } = session;
  const watches = await openWatches(db.location, { mode: 'write', ...targetOptions(db), signal: session.signal });
  session.hold(() => watches.close());
  const watch = await watches.lock(plan.name);
  session.hold(() => watch.release());
  const work = await workDirectory(plan.tempDir, `${watches.identity}\0${plan.name}`, fs);
  session.hold(() => fs.rm(work, { recursive: true, force: true }).catch(() => undefined));
  const files = watchFiles(work, plan.name);
  const kept = `${watches.location} (watch ${plan.name})`;
  const record = await watches.get(plan.name);
  const file = await stateFile(plan, fs);
  if (record && file) {
    throw new RunError(
      `watch ${plan.name} is kept both in ${watches.location} and in ${file}: delete the file to go on with the copy's, ` +
        `or forget the copy's (tenders watch ${plan.name} --forget --db ${watches.location}) to move the file in with the next run`,
    );
  }
  if (file) {
    await session.lock(file);
    await fs.copyFile(file, files.state);
  }
  let moved = false;
  const took = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
  // Read when the run needs it (not for a new baseline), while the service sends the first pages.
  const read = async () => {
    if (!record) return;
    const reading = performance.now();
    await writeState(record, watch.tenders(), files.state, fs);
    say.debug(`watch ${plan.name}: state of ${formatCounted(record.tenders, 'tenders')} read from the copy in ${took(reading)}`);
  };
  return {
    files,
    get label() {
      return file && !moved ? file : kept;
    },
    header: async () => (record ? recordHeader(record, kept) : file === undefined ? undefined : readHeader(files.state, fs)),
    load: () => read().then(() => loadState(files.state, fs)),
    check: () => watch.check(),
    save: async () => {
      const saving = performance.now();
      const { header, summary } = await readEnds(files.state, fs);
      await watch.save(stateRecord(header, summary), tenderRows(files.state, fs));
      say.debug(`watch ${plan.name}: state of ${formatCounted(summary.tenders, 'tenders')} saved into the copy in ${took(saving)}`);
      if (!file) return;
      moved = true;
      // The copy holds the state now: a file that cannot be deleted is said, not a failed run.
      await fs.rm(file, { force: true }).then(
        () =>
          say.warn(
            plan.reset
              ? `watch ${plan.name}: a new baseline in ${watches.location} replaces its state file ${file}, deleted`
              : `watch ${plan.name}: its state moved from ${file} into ${watches.location}`,
          ),
        (err: Error) => say.warn(`watch ${plan.name}: its state is in ${watches.location} now, but ${file} could not be deleted (${err.message}): delete it`),
      );
    },
  };
}

/** The saved header of the plan's watch in its copy (or in the file it would move in), without its lock: for --dry-run. */
export async function savedHeader(plan: Pick<WatchPlan, 'name' | 'dir'>, db: StoreTarget, fs: FileSystem): Promise<StateHeader | undefined> {
  const watches = await openWatches(db.location, { mode: 'read', ...targetOptions(db) });
  try {
    const record = await watches.get(plan.name);
    if (record) return recordHeader(record, `${watches.location} (watch ${plan.name})`);
  } finally {
    await watches.close();
  }
  return plan.dir === undefined ? undefined : readHeader(watchFiles(plan.dir, plan.name).state, fs);
}

/**
 * A new work directory for the watch, named by a hash of the copy and the
 * watch, after removing what a killed run of it left: directories of that
 * name of the same owner, private as this one is (the lock held says no run
 * of the watch is using one; another user's are left alone).
 */
async function workDirectory(tempDir: string, key: string, fs: FileSystem): Promise<string> {
  const prefix = `tenders-watch-${createHash('sha256').update(key).digest('hex').slice(0, 16)}-`;
  let made: string;
  try {
    made = await fs.mkdtemp(join(tempDir, prefix)); // mode 700
  } catch (err) {
    throw writeFailure(tempDir, err);
  }
  const mine = await fs.lstat(made);
  for (const entry of await fs.readdir(tempDir).catch(() => [] as string[])) {
    const path = join(tempDir, entry);
    if (!entry.startsWith(prefix) || path === made) continue;
    const st = await fs.lstat(path).catch(() => undefined);
    if (st?.isDirectory() && st.uid === mine.uid && (st.mode & 0o777) === 0o700) await fs.rm(path, { recursive: true, force: true }).catch(() => undefined);
  }
  return made;
}

/** The watch's state file in the state directory, when there is one. */
async function stateFile(plan: WatchPlan, fs: FileSystem): Promise<string | undefined> {
  if (plan.dir === undefined) return undefined;
  const file = watchFiles(plan.dir, plan.name).state;
  // Through a link, as a file-kept run reads it.
  return (await fs.stat(file).then((st) => st.isFile(), () => false)) ? file : undefined;
}

/** The header of a watch the copy keeps, checked as a state file's first line is (a row edited by hand: StateError naming `kept`). */
export function recordHeader(record: WatchRecord, kept: string): StateHeader {
  return parseHeader(kept, Buffer.from(headerLine(headerOf(record), record.format).trimEnd()));
}

const headerOf = (record: WatchRecord): StateHeader => ({
  name: record.name,
  query: record.query,
  created: record.created,
  ...(record.service === undefined ? {} : { service: record.service }),
});

function stateRecord(header: StateHeader, summary: StateSummary): WatchRecord {
  return {
    name: header.name,
    format: STATE_FORMAT,
    query: header.query,
    ...(header.service === undefined ? {} : { service: header.service }),
    created: header.created,
    lastRun: summary.lastRun,
    tenders: summary.tenders,
    newestPublicationDate: summary.newestPublicationDate,
    fields: summary.fields,
  };
}

/** A state file of the record and its tenders, as StateWriter writes one. */
async function writeState(record: WatchRecord, tenders: AsyncIterable<WatchTenderRow[]>, file: string, fs: FileSystem): Promise<void> {
  const handle = await createExclusive(file, fs).catch((err: unknown) => {
    throw writeFailure(file, err);
  });
  // A failure of the disk is said as one; the copy's (a lost server, Ctrl-C) as it is.
  const write = (text: string) =>
    handle.write(text).catch((err: unknown) => {
      throw writeFailure(file, err);
    });
  try {
    await handle.chmod(0o600); // as a state file: a query and what it found are the user's own
    await write(headerLine(headerOf(record), record.format));
    for await (const batch of tenders) {
      await write(batch.map(([id, hashes, title, deadline]) => `${id}\t${hashes}\t${title ?? ''}\t${deadline ?? ''}\n`).join(''));
    }
    const { lastRun, tenders: count, newestPublicationDate, fields } = record;
    await write(summaryLine({ lastRun, newestPublicationDate, fields, tenders: count }));
  } finally {
    await handle.close();
  }
}

/** The tender lines of a state file, as rows. */
async function* tenderRows(file: string, fs: FileSystem): AsyncGenerator<WatchTenderRow[]> {
  let first = true;
  for await (const lines of lineBatches(file, fs)) {
    const rows: WatchTenderRow[] = [];
    for (const line of lines) {
      if (first || line[0] === 0x7b /* { the summary */) {
        first = false;
        continue;
      }
      const [id, hashes, title, deadline] = line.toString('utf8').split('\t');
      rows.push([id!, hashes!, title || null, deadline || null]);
    }
    if (rows.length) yield rows;
  }
}
