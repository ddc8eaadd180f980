import { RunError } from '../errors.js';

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
