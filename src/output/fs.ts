import * as fsp from 'node:fs/promises';

/**
 * The file-system calls that output files, state files and locks make, in one
 * injectable shape: a test can make a write fail with ENOSPC or EROFS without
 * a full or read-only disk.
 */
export type FileSystem = Pick<typeof fsp, 'open' | 'rename' | 'unlink' | 'lstat' | 'stat' | 'access' | 'readlink'>;

export const nodeFs: FileSystem = fsp;
