/** pgpass's helper (pgpass is a dependency of pg): how it finds ~/.pgpass ($PGPASSFILE) in a given environment, and reads a password from it. */
declare module 'pgpass/lib/helper.js' {
  import type { Stats } from 'node:fs';
  import type { Readable } from 'node:stream';
  const helper: {
    getFileName(env: Readonly<Record<string, string | undefined>>): string;
    usePgPass(stats: Stats, file: string): boolean;
    getPassword(connection: { host?: string; port?: number; database?: string; user?: string }, stream: Readable, done: (password: string | undefined) => void): void;
  };
  export default helper;
}
