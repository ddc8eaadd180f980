import * as fsp from 'node:fs/promises';

/**
 * The file-system calls that output files, state files (a resume's, a
 * watch's) and locks make, in one injectable shape: a test can make a write
 * fail with ENOSPC or EROFS without a full or read-only disk.
 */
export type FileSystem = Pick<typeof fsp, 'open' | 'rename' | 'unlink' | 'lstat' | 'stat' | 'access' | 'readlink' | 'mkdir' | 'readdir' | 'rm' | 'mkdtemp' | 'copyFile'>;

export const nodeFs: FileSystem = fsp;

/** The bytes of `path` from `start` to `end` (inclusive), a read's worth at a time, through `fs`. */
export async function* readChunks(
  fs: FileSystem,
  path: string,
  opts: { start?: number; end?: number; highWaterMark?: number } = {},
): AsyncGenerator<Buffer> {
  const handle = await fs.open(path, 'r');
  try {
    // The stream closes the handle when it ends or is destroyed; autoClose off leaves that to us.
    yield* handle.createReadStream({ ...opts, autoClose: false }) as AsyncIterable<Buffer>;
  } finally {
    await handle.close();
  }
}
