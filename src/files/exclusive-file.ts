import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { nodeFs, type FileSystem } from './fs.js';
import { writeFailure } from './write-error.js';

const { O_WRONLY, O_RDONLY, O_RDWR, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = constants;

/** A new file, never an existing one nor the target of a link planted at its name. */
export const CREATE_EXCLUSIVE = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;

/** A name whose file is not a regular one (a link, a FIFO...): never read or written through. */
export class NotRegularFileError extends Error {
  override name = 'NotRegularFileError';
}

/** Removes whatever is at `path` (a link itself, never what it points to); absent is fine. */
export async function removeName(path: string, fs: FileSystem = nodeFs): Promise<void> {
  await fs.unlink(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}

/**
 * Creates `path` afresh for writing. Whatever was at the name (a stale file,
 * a symbolic link someone planted) is unlinked first, then the file is created
 * exclusively (O_EXCL, O_NOFOLLOW): a root cron job cannot be made to write
 * through a link into /etc/passwd.
 */
export async function createExclusive(path: string, fs: FileSystem = nodeFs): Promise<FileHandle> {
  await removeName(path, fs);
  return fs.open(path, CREATE_EXCLUSIVE, 0o666);
}

/**
 * Gives a new file the permission bits of the regular file it is to replace,
 * as `sed -i` and editors do: an export the user made private (mode 600)
 * stays private, also while it is written. Best effort: a file system without
 * modes keeps its own.
 */
export async function keepMode(handle: FileHandle, replaced: string, fs: FileSystem = nodeFs): Promise<void> {
  const stats = await fs.lstat(replaced).catch(() => undefined); // a link at the name is replaced, not what it leads to
  if (stats?.isFile()) await handle.chmod(stats.mode & 0o777).catch(() => undefined);
}

/**
 * Opens an existing regular file, refusing a link (O_NOFOLLOW) and anything
 * else that is not a regular file (a FIFO is opened without blocking, then
 * refused): for reading a saved state or continuing a partial file.
 */
export async function openRegular(path: string, write: boolean, fs: FileSystem = nodeFs): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await fs.open(path, (write ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new NotRegularFileError(`${path} is a symbolic link`);
    throw err;
  }
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw new NotRegularFileError(`${path} is not a regular file`);
  }
  return handle;
}

/** The text of a regular file, or undefined when it is absent, a link or unreadable. */
export async function readRegular(path: string, fs: FileSystem = nodeFs): Promise<string | undefined> {
  const handle = await openRegular(path, false, fs).catch(() => undefined);
  if (!handle) return undefined;
  try {
    return await handle.readFile('utf8');
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `path` with `data` atomically: written to `path.tmp` (created
 * exclusively), optionally flushed, then renamed over `path` (a rename
 * replaces a link, it never writes through one). On failure nothing is left
 * behind and `path` is as it was; the error says what happened in words.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  opts: { fs?: FileSystem; sync?: boolean; mode?: number } = {},
): Promise<void> {
  const fs = opts.fs ?? nodeFs;
  const tmp = `${path}.tmp`;
  let handle: FileHandle | undefined;
  try {
    handle = await createExclusive(tmp, fs);
    // `mode`: a new file's; the file replaced, if any, gives its own.
    if (opts.mode !== undefined) await handle.chmod(opts.mode);
    await keepMode(handle, path, fs);
    await handle.writeFile(data);
    if (opts.sync) await handle.sync();
    await handle.close();
    handle = undefined;
    await fs.rename(tmp, path);
  } catch (err) {
    await handle?.close().catch(() => undefined);
    await removeName(tmp, fs).catch(() => undefined);
    throw writeFailure(path, err);
  }
}
