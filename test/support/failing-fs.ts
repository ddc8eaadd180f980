import * as fsp from 'node:fs/promises';
import type { FileSystem } from '../../src/files/fs.js';

/** An error as Node's file system gives it: `code` and a message that starts with it. */
export const errno = (code: string) => Object.assign(new Error(`${code}: failed`), { code });

/**
 * Node's file system, but writes into files whose name ends in `suffix` fail
 * with `code` (ENOSPC, EROFS...) once `after` write calls have gone through:
 * a full or read-only disk without one.
 */
export function failingWrites(code: string, opts: { suffix?: string; after?: number } = {}): FileSystem {
  const { suffix = '', after = 0 } = opts;
  let writes = 0;
  return {
    ...fsp,
    open: (async (...args: Parameters<typeof fsp.open>) => {
      const handle = await fsp.open(...args);
      if (!String(args[0]).endsWith(suffix)) return handle;
      const counted =
        (real: (...a: never[]) => Promise<unknown>) =>
        async (...a: never[]) => {
          if (writes++ >= after) throw errno(code);
          return real.apply(handle, a);
        };
      return Object.assign(Object.create(handle) as fsp.FileHandle, {
        write: counted(handle.write as never),
        writeFile: counted(handle.writeFile as never),
        close: () => handle.close(),
        sync: () => handle.sync(),
        truncate: (n?: number) => handle.truncate(n),
      });
    }) as typeof fsp.open,
  };
}
