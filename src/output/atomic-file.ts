import { open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { RunError } from '../errors.js';
import type { OutputTarget } from './sink.js';

/** The partial output of `-o FILE` lives beside FILE until the export is complete. */
export function partialPath(target: string): string {
  return `${target}.partial`;
}

/**
 * Writes FILE atomically: everything goes to FILE.partial, which is renamed
 * onto FILE only by `commit()`. Until then FILE stays as it was.
 */
export class AtomicFileOutput implements OutputTarget {
  readonly kind = 'file';
  bytes: number;

  private constructor(
    readonly target: string,
    private readonly handle: FileHandle,
    bytes: number,
  ) {
    this.bytes = bytes;
  }

  /** Opens FILE.partial afresh, or keeps its first `keepBytes` bytes (resume). */
  static async open(target: string, keepBytes = 0): Promise<AtomicFileOutput> {
    const path = partialPath(target);
    try {
      const handle = await open(path, keepBytes > 0 ? 'r+' : 'w');
      if (keepBytes > 0) await handle.truncate(keepBytes);
      return new AtomicFileOutput(target, handle, keepBytes);
    } catch (err) {
      throw writeError(path, err);
    }
  }

  /** Bytes in FILE.partial now, or -1 when it is absent. */
  static async partialSize(target: string): Promise<number> {
    return stat(partialPath(target)).then((s) => s.size, () => -1);
  }

  async write(chunk: string): Promise<void> {
    if (chunk === '') return;
    const data = Buffer.from(chunk);
    try {
      await this.handle.write(data, 0, data.length, this.bytes);
    } catch (err) {
      throw writeError(partialPath(this.target), err);
    }
    this.bytes += data.length;
  }

  /** Flushes to disk and puts the finished file in place. */
  async finish(): Promise<void> {
    try {
      await this.handle.sync();
      await this.handle.close();
      await rename(partialPath(this.target), this.target);
    } catch (err) {
      throw writeError(this.target, err);
    }
  }

  /** Stops writing; the partial file stays for --resume only when asked. */
  async abandon(keepPartial: boolean): Promise<void> {
    await this.handle.close().catch(() => undefined);
    if (!keepPartial) await rm(partialPath(this.target), { force: true });
  }
}

function writeError(path: string, err: unknown): RunError {
  return new RunError(`cannot write ${path}: ${(err as Error).message}`, { cause: err });
}
