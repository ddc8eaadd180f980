/**
 * What --db names, checked before SQLite opens it (SQLite would create,
 * convert or half-open what it is given): every refusal is one line, and the
 * file is left as it was.
 */

import { accessSync, closeSync, constants, mkdirSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { NoCopyError, UsageError } from '../errors.js';

const HEADER = 'SQLite format 3\0';

/**
 * Throws unless `path` can be opened in `mode`: a SQLite file, an empty one,
 * or (for writing) none yet, its directory made. Returns whether the file exists.
 */
export function checkDatabaseFile(path: string, mode: 'read' | 'write'): boolean {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new UsageError(`${path}: cannot read the local copy (${(err as Error).message})`);
    if (mode === 'read') throw new NoCopyError(`no local copy at ${path} yet: run tenders sync first`);
    makeDirectory(dirname(path));
    if (!writable(dirname(path))) throw new UsageError(`${dirname(path)} is read-only: a sync needs to make the local copy ${path} there`);
    return false;
  }
  if (stats.isDirectory()) throw new UsageError(`${path} is a directory, not a tenders database: name a file in it`);
  if (!stats.isFile()) throw new UsageError(`${path} is not a regular file, so not a tenders database`);
  if (stats.size > 0 && readHeader(path) !== HEADER) throw new UsageError(`${path} is not a SQLite database (a tenders database is one)`);
  if (mode === 'write') {
    // Root may write anything; a file without write bits was still made read-only on purpose.
    if ((stats.mode & 0o222) === 0 || !writable(path)) throw new UsageError(`${path} is read-only: a sync needs to write it`);
    if (!writable(dirname(path))) {
      throw new UsageError(`${dirname(path)} is read-only: SQLite writes its journal (${path}-wal) beside the database`);
    }
  }
  return true;
}

function readHeader(path: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buffer = Buffer.alloc(HEADER.length);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.toString('latin1', 0, n);
  } catch (err) {
    throw new UsageError(`${path}: cannot read the local copy (${(err as Error).message})`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function makeDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new UsageError(`cannot make the directory of the local copy, ${dir}: ${(err as Error).message}`);
  }
}
