import type { FileHandle } from 'node:fs/promises';
import { createExclusive, keepMode, openRegular, removeName } from './exclusive-file.js';
import { nodeFs, type FileSystem } from './fs.js';
import type { Chunk } from './sink.js';
import type { OutputTarget } from './sink.js';
import { writeFailure } from './write-error.js';

/** The partial output of `-o FILE` lives beside FILE until the export is complete. */
export function partialPath(target: string): string {
  return `${target}.partial`;
}

/**
 * Writes FILE atomically: everything goes to FILE.partial, which is renamed
 * onto FILE only by `finish()`. Until then FILE stays as it was. The partial
 * file is created exclusively, or (resume) reopened only if it is a regular
 * file: never written through a link planted at its name.
 */
export class AtomicFileOutput implements OutputTarget {
  readonly kind = 'file';
  readonly terminal = false;
  bytes: number;

  private constructor(
    readonly target: string,
    private readonly handle: FileHandle,
    bytes: number,
    private readonly fs: FileSystem,
  ) {
    this.bytes = bytes;
  }

  /** Creates FILE.partial afresh, or keeps its first `keepBytes` bytes (resume). */
  static async open(target: string, keepBytes = 0, fs: FileSystem = nodeFs): Promise<AtomicFileOutput> {
    const path = partialPath(target);
    try {
      const handle = keepBytes > 0 ? await openRegular(path, true, fs) : await createExclusive(path, fs);
      if (keepBytes > 0) await handle.truncate(keepBytes);
      else await keepMode(handle, target, fs);
      return new AtomicFileOutput(target, handle, keepBytes, fs);
    } catch (err) {
      throw writeFailure(path, err);
    }
  }

  async write(chunk: Chunk): Promise<void> {
    if (chunk.length === 0) return;
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    try {
      await this.handle.write(data, 0, data.length, this.bytes);
    } catch (err) {
      throw writeFailure(partialPath(this.target), err);
    }
    this.bytes += data.length;
  }

  /** Flushes to disk and puts the finished file in place. */
  async finish(): Promise<void> {
    try {
      await this.handle.sync();
      await this.handle.close();
    } catch (err) {
      throw writeFailure(partialPath(this.target), err);
    }
    try {
      await this.fs.rename(partialPath(this.target), this.target);
    } catch (err) {
      throw writeFailure(this.target, err);
    }
  }

  /** Stops writing; the partial file stays for --resume only when asked. */
  async abandon(keepPartial: boolean): Promise<void> {
    await this.handle.close().catch(() => undefined);
    if (!keepPartial) await removeName(partialPath(this.target), this.fs).catch(() => undefined);
  }
}
