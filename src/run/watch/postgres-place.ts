import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { createExclusive } from '../../files/exclusive-file.js';
import type { FileSystem } from '../../files/fs.js';
import { writeFailure } from '../../files/write-error.js';
import { stringifyExact } from '../../model/exact-json.js';
import { formatCounted } from '../../model/numbers.js';
import { targetOptions, type StoreTarget } from '../../store/location.js';
import { PostgresWatches, type WatchRecord, type WatchTenderRow } from '../../store/postgres-watches.js';
import type { WatchPlan } from '../plan.js';
import type { Session } from '../session.js';
import { watchFiles, type WatchFiles } from './location.js';
import type { WatchPlace } from './place.js';
import { lineBatches, loadState, readEnds, readHeader, STATE_FORMAT, type StateHeader, type StateSummary } from './state.js';

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
 * the file, and once the copy holds the next state, the file is deleted.
 */
export async function openPostgresPlace(plan: WatchPlan, db: StoreTarget, session: Session): Promise<WatchPlace> {
  const { fs, say } = session;
  const watches = await PostgresWatches.open(db.location, { mode: 'write', ...targetOptions(db) });
  session.hold(() => watches.close());
  const watch = await watches.lock(plan.name);
  session.hold(() => watch.release());
  const work = await workDirectory(plan, watches.location, fs);
  session.hold(() => fs.rm(work, { recursive: true, force: true }).catch(() => undefined));
  const files = watchFiles(work, plan.name);
  const record = await watches.get(plan.name);
  const file = record ? undefined : await adopt(plan, files, session);
  const took = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
  // Read when the run needs it (not for a new baseline), while the service sends the first pages.
  const read = async () => {
    const reading = performance.now();
    if (record) await writeState(record, watch.tenders(), files.state, fs);
    if (record) say.debug(`watch ${plan.name}: state of ${formatCounted(record.tenders, 'tenders')} read from the copy in ${took(reading)}`);
  };
  return {
    files,
    label: file ?? `${watches.location} (watch ${plan.name})`,
    header: async () => (record ? headerOf(record) : file === undefined ? undefined : readHeader(files.state, fs)),
    load: () => read().then(() => loadState(files.state, fs)),
    save: async () => {
      const saving = performance.now();
      const { header, summary } = await readEnds(files.state, fs);
      await watch.save(recordOf(header, summary), tenderRows(files.state, fs));
      say.debug(`watch ${plan.name}: state of ${formatCounted(summary.tenders, 'tenders')} saved into the copy in ${took(saving)}`);
      if (file === undefined) return;
      await fs.rm(file, { force: true });
      say.warn(`watch ${plan.name}: its state moved from ${file} into ${watches.location}`);
    },
  };
}

/** The saved header of the plan's watch in its copy (or in the file it would move in), without its lock: for --dry-run. */
export async function savedHeader(plan: WatchPlan, db: StoreTarget, fs: FileSystem): Promise<StateHeader | undefined> {
  const watches = await PostgresWatches.open(db.location, { mode: 'read', ...targetOptions(db) });
  try {
    const record = await watches.get(plan.name);
    if (record) return headerOf(record);
  } finally {
    await watches.close();
  }
  return plan.dir === undefined ? undefined : readHeader(watchFiles(plan.dir, plan.name).state, fs);
}

/**
 * A new work directory for the watch's files, after removing what a killed
 * run of it left: the directories of this watch in this copy are named by a
 * hash of both, and the lock held says no run of it is using one.
 */
async function workDirectory(plan: WatchPlan, location: string, fs: FileSystem): Promise<string> {
  const prefix = `tenders-watch-${createHash('sha256').update(`${location}\0${plan.name}`).digest('hex').slice(0, 16)}-`;
  for (const entry of await fs.readdir(plan.tempDir).catch(() => [] as string[])) {
    if (!entry.startsWith(prefix)) continue;
    const path = join(plan.tempDir, entry);
    const st = await fs.lstat(path).catch(() => undefined);
    if (st?.isDirectory()) await fs.rm(path, { recursive: true, force: true }).catch(() => undefined);
  }
  try {
    return await fs.mkdtemp(join(plan.tempDir, prefix)); // mode 700
  } catch (err) {
    throw writeFailure(plan.tempDir, err);
  }
}

/** The watch's state file in the state directory, when there is one to move in: copied into the run's files, under its lock. */
async function adopt(plan: WatchPlan, files: WatchFiles, session: Session): Promise<string | undefined> {
  if (plan.dir === undefined) return undefined;
  const file = watchFiles(plan.dir, plan.name).state;
  if (!(await session.fs.lstat(file).then((st) => st.isFile(), () => false))) return undefined;
  await session.lock(file);
  await session.fs.copyFile(file, files.state);
  return file;
}

const headerOf = (record: WatchRecord): StateHeader => ({
  name: record.name,
  query: record.query as StateHeader['query'],
  created: record.created,
  ...(record.service === null ? {} : { baseUrl: record.service }),
});

function recordOf(header: StateHeader, summary: StateSummary): WatchRecord {
  return {
    name: header.name,
    format: STATE_FORMAT,
    query: header.query,
    service: header.baseUrl ?? null,
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
  try {
    await handle.write(`${stringifyExact({ tendersWatch: record.format, ...headerOf(record) })}\n`);
    for await (const batch of tenders) {
      await handle.write(batch.map(([id, hashes, title, deadline]) => `${id}\t${hashes}\t${title ?? ''}\t${deadline ?? ''}\n`).join(''));
    }
    const { lastRun, tenders: count, newestPublicationDate, fields } = record;
    await handle.write(`${JSON.stringify({ end: { lastRun, tenders: count, newestPublicationDate, fields } })}\n`);
  } catch (err) {
    throw writeFailure(file, err);
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
