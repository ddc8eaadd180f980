import { RunError, UsageError } from '../errors.js';

/** A failed write said in words, with what to do: "disk full while writing out.csv.partial". */
export function writeFailure(what: string, err: unknown): RunError {
  const { code, message } = err as NodeJS.ErrnoException;
  const words =
    code === 'ENOSPC'
      ? `disk full while writing ${what}: free some space and run again`
      : code === 'EDQUOT'
        ? `disk quota exceeded while writing ${what}`
        : code === 'EROFS'
          ? `read-only file system: cannot write ${what}`
          : code === 'EACCES' || code === 'EPERM'
            ? `permission denied writing ${what}`
            : `cannot write ${what}: ${message}`;
  return new RunError(words, { cause: err });
}

/**
 * A target that cannot be used, said with the user's own words: `named` is the
 * flag and its file ("-o out.csv"), `where` what could not be used ("the
 * directory /proc"), never a file of our own beside it.
 */
export function unusableTarget(named: string, where: string, err: NodeJS.ErrnoException): UsageError {
  switch (err.code) {
    case 'EACCES':
    case 'EPERM':
      return new UsageError(`cannot write ${named}: ${where} is not writable (permission denied)`);
    case 'EROFS':
      return new UsageError(`cannot write ${named}: ${where} is on a read-only file system`);
    case 'ENOTDIR':
      return new UsageError(`cannot write ${named}: a part of its path is not a directory`);
    case 'ELOOP':
      return new UsageError(`${named}: too many levels of symbolic links`);
    case 'ENOENT':
      return new UsageError(`cannot write ${named}: ${where} does not take new files`);
    default:
      return new UsageError(`cannot write ${named}: ${err.message}`);
  }
}
