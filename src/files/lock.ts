import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { RunError } from '../errors.js';
import { processAlive, processId } from '../io.js';
import { CREATE_EXCLUSIVE, readRegular, removeName } from './exclusive-file.js';
import { nodeFs, type FileSystem } from './fs.js';
import { heldLocks } from './held-locks.js';
import { unusableTarget, writeFailure } from './write-error.js';

/** Who holds a lock: written into the lock file when it is created. */
interface Holder {
  pid: number;
  host: string;
  started: string;
}

export function lockPath(target: string): string {
  return `${target}.lock`;
}

/**
 * Makes this process the one writer of `target` until the returned function
 * is called: `target.lock` is created exclusively with our pid, host and start
 * time. A lock whose process is alive (on this host) is respected: RunError,
 * naming the pid. A lock left by a process that is gone is taken over, said
 * through `log` (--verbose).
 */
export async function acquireLock(
  target: string,
  opts: {
    fs?: FileSystem;
    log?: (line: string) => void;
    /** How the user named the target ("-o out.csv"): a lock its directory refuses (/proc, /sys) is then a usage error naming it. */
    named?: string;
  } = {},
): Promise<() => Promise<void>> {
  const fs = opts.fs ?? nodeFs;
  const path = lockPath(target);
  const mine: Holder = { pid: processId(), host: hostname(), started: new Date().toISOString() };
  // Again after a stale lock was removed or a lock vanished; a few times at most.
  for (let attempt = 0; attempt < 3; attempt++) {
    const created = await create(path, JSON.stringify(mine) + '\n', fs).catch((err: Error) => {
      const code = (err.cause as NodeJS.ErrnoException | undefined)?.code;
      if (opts.named && code !== 'ENOSPC' && code !== 'EDQUOT') throw unusableTarget(opts.named, `the directory ${dirname(target)}`, err.cause as NodeJS.ErrnoException);
      throw err;
    });
    if (created) {
      heldLocks.add(path);
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        heldLocks.delete(path);
        await removeName(path, fs).catch(() => undefined);
      };
    }
    const text = await readRegular(path, fs);
    if (text === undefined && !(await exists(path, fs))) continue; // released meanwhile
    const holder = parseHolder(text);
    if (!holder) {
      throw new RunError(`${target} is locked by ${path}, which is not a tenders lock file: remove it if no export to ${target} is running`);
    }
    if (isAlive(holder, path)) {
      throw new RunError(
        `${target} is being written by another tenders process (pid ${holder.pid}${holder.host !== mine.host ? ` on ${holder.host}` : ''}, since ${holder.started}): ` +
          `wait for it to finish, or remove ${path} if that process is not running`,
      );
    }
    // Only the lock we judged stale: another run may have taken it over meanwhile.
    if ((await readRegular(path, fs)) !== text) continue;
    await removeName(path, fs);
    opts.log?.(`took over ${path}: pid ${holder.pid} that held it (since ${holder.started}) is no longer running`);
  }
  throw new RunError(`cannot lock ${target}: ${path} keeps changing; is another export running?`);
}

/** Creates the lock file with our holder; false when one exists already. */
async function create(path: string, content: string, fs: FileSystem): Promise<boolean> {
  let handle;
  try {
    handle = await fs.open(path, CREATE_EXCLUSIVE, 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw writeFailure(path, err);
  }
  try {
    await handle.writeFile(content);
    await handle.close();
    return true;
  } catch (err) {
    await handle.close().catch(() => undefined);
    await removeName(path, fs).catch(() => undefined);
    throw writeFailure(path, err);
  }
}

function parseHolder(text: string | undefined): Holder | undefined {
  try {
    const holder = JSON.parse(text ?? '') as Holder;
    return Number.isInteger(holder?.pid) && holder.pid > 0 && typeof holder.host === 'string' ? holder : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the holder still runs. Our own pid holds it only if this very
 * process took it (else a process before us had our pid, as in a restarted
 * container). Another host's process cannot be checked: assumed alive.
 */
function isAlive(holder: Holder, path: string): boolean {
  if (holder.host !== hostname()) return true;
  if (holder.pid === processId()) return heldLocks.has(path);
  return processAlive(holder.pid);
}

async function exists(path: string, fs: FileSystem): Promise<boolean> {
  return fs.lstat(path).then(
    () => true,
    () => false,
  );
}
