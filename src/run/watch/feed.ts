import { UsageError } from '../../errors.js';
import { readRegular } from '../../files/exclusive-file.js';
import type { FileSystem } from '../../files/fs.js';
import { atomEntry, atomFoot, atomHead, changeEntry, watchFeed, type WatchFeedInfo } from '../../output/formats/atom-formatter.js';
import { AtomicFileOutput } from '../../files/atomic-file.js';
import { resolveTarget, sameFile, type Target } from '../../files/target.js';
import { stringifyJson } from '../../model/exact-json.js';
import { neutralizeForTerminal } from '../../output/terminal/sanitize.js';
import type { WatchChange } from './watch-changes.js';

/** An entry as it stands in the file: its id and its XML, kept byte for byte. */
interface FeedEntry {
  id: string;
  xml: string;
}

const ENTRY = /^ {2}<entry>\n {4}<id>([^<]*)<\/id>\n[\s\S]*?\n {2}<\/entry>\n/;
const HEAD_END = /^ {2}<generator version="[^"]*">tenders<\/generator>\n/m;

/**
 * A watch's rolling --feed FILE: the entries already in it (only a feed this
 * watch wrote is read; anything else is a usage error, before any request,
 * and FILE stays as it was), the run's changes added in front, the newest
 * `size` kept, written atomically once the run commits.
 */
export class RollingFeed {
  /** The run's first `size` entries, in the order the run reports its changes (new, changed, gone): they share its time. */
  readonly #added: FeedEntry[] = [];
  readonly #serialize = (tender: Record<string, unknown>) => neutralizeForTerminal(stringifyJson(tender), true);
  /** Entries written by the last commit (for the receipt). */
  written: number | undefined;

  private constructor(
    readonly file: string,
    readonly name: string,
    readonly size: number,
    readonly existed: boolean,
    readonly kept: readonly FeedEntry[],
    private readonly fs: FileSystem,
  ) {}

  /** Reads FILE (absent or empty: a feed still to be made). */
  static async open(file: string, name: string, size: number, fs: FileSystem): Promise<RollingFeed> {
    const target = await resolveTarget(file, false, fs, '--feed');
    if (target.kind !== 'file') throw new UsageError(`--feed ${file} is not a regular file: a rolling feed is rewritten whole, atomically`);
    const exists = await fs.stat(target.path).then(
      () => true,
      () => false,
    );
    const text = exists ? await readRegular(target.path, fs) : undefined;
    if (exists && text === undefined) throw new UsageError(`--feed ${file} cannot be read as a regular file`);
    const entries = text === undefined || text === '' ? [] : parseFeed(text, file, name);
    return new RollingFeed(target.path, name, size, text !== undefined && text !== '', entries, fs);
  }

  /** `cpvPaths`: where the tenders' CPV codes are (the cpv-paths setting), for each entry's CPV line. */
  add(changes: readonly WatchChange[], watch: WatchFeedInfo, now: Date, cpvPaths?: readonly string[]): void {
    // A run of more changes than the feed holds keeps its first ones, as stdout and -f atom list them: the new tenders first.
    for (const change of changes.slice(0, this.size - this.#added.length)) {
      const entry = atomEntry(changeEntry(change, watch, now, this.#serialize(change.tender), cpvPaths));
      this.#added.push({ id: ENTRY.exec(entry)![1]!, xml: entry });
    }
  }

  /** Writes FILE when the run added entries (or FILE is not there yet, so a reader can subscribe); else leaves it. */
  async commit(now: Date): Promise<void> {
    if (this.#added.length === 0 && this.existed) return;
    const fresh = this.#added;
    const ids = new Set(fresh.map((e) => e.id));
    // An entry delivered again (a run whose state did not move) replaces its earlier copy.
    const entries = [...fresh, ...this.kept.filter((e) => !ids.has(e.id))].slice(0, this.size);
    const out = await AtomicFileOutput.open(this.file, 0, this.fs);
    try {
      await out.write(atomHead(watchFeed(this.name, now)));
      for (const entry of entries) await out.write(entry.xml);
      await out.write(atomFoot());
      await out.finish();
    } catch (err) {
      await out.abandon(false);
      throw err;
    }
    this.written = entries.length;
  }
}

/**
 * Refuses (exit 2, before any request) a --feed FILE that is the run's
 * output file, by name or through a link: the feed would replace the changes
 * just written there.
 */
export async function refuseOutputFeed(file: string, output: Target | undefined, fs: FileSystem): Promise<void> {
  if (sameFile(await resolveTarget(file, false, fs, '--feed'), output)) {
    throw new UsageError(`--feed ${file} is the output file: name another file for the feed`);
  }
}

/** The entries of a feed this watch wrote, or a usage error naming what FILE is instead. */
function parseFeed(text: string, file: string, name: string): FeedEntry[] {
  const notOurs = (why: string) => new UsageError(`--feed ${file} ${why}: give a new file, or one that watch ${name} --feed wrote`);
  const head = atomHead(watchFeed(name, new Date(0))).split('\n');
  const lines = text.split('\n', 3);
  if (lines[0] !== head[0] || lines[1] !== head[1]) throw notOurs('is not an Atom feed of tenders');
  const id = /^ {2}<id>([^<]*)<\/id>$/.exec(lines[2] ?? '')?.[1];
  if (id !== head[2]!.trim().slice(4, -5)) throw notOurs(id?.startsWith('urn:tenders:watch:') ? 'is the feed of another watch' : 'is not the feed of a watch');
  const end = HEAD_END.exec(text);
  if (!end || !text.endsWith(atomFoot())) throw notOurs('is not a whole feed that tenders wrote');
  let rest = text.slice(end.index + end[0].length, text.length - atomFoot().length);
  const entries: FeedEntry[] = [];
  while (rest.length > 0) {
    const match = ENTRY.exec(rest);
    if (!match) throw notOurs('holds something other than the entries tenders writes');
    entries.push({ id: match[1]!, xml: match[0] });
    rest = rest.slice(match[0].length);
  }
  return entries;
}
