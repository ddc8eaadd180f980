import { once } from 'node:events';
import { createGzip, type Gzip } from 'node:zlib';
import type { Chunk } from './sink.js';
import type { OutputTarget } from './sink.js';

/**
 * `-o FILE.gz`: any format's chunks compressed on the way to the output that
 * FILE names (atomic as every -o: the compressed bytes go to FILE.partial and
 * only a finished stream is renamed onto FILE). Streamed: what zlib gives back
 * is written at once, so memory holds no more than zlib's own window.
 */
export class GzipOutput implements OutputTarget {
  readonly #gzip: Gzip = createGzip();
  #compressed: Buffer[] = [];
  #failure: Error | undefined;
  /** Each compressed chunk as it is written (the receipt digests the file's bytes). */
  onCompressed: ((bytes: Uint8Array) => void) | undefined;

  /** `inner`: where the compressed bytes go (a file's `bytes` count them). */
  constructor(readonly inner: OutputTarget & { readonly bytes?: number }) {
    this.#gzip.on('data', (bytes: Buffer) => this.#compressed.push(bytes));
    this.#gzip.on('error', (err: Error) => (this.#failure = err));
  }

  get kind() {
    return this.inner.kind;
  }

  get terminal() {
    return this.inner.terminal;
  }

  /** Compressed bytes in the file so far. */
  get bytes(): number {
    return this.inner.bytes ?? 0;
  }

  async write(chunk: Chunk): Promise<void> {
    if (chunk.length === 0) return;
    if (!this.#gzip.write(chunk)) await once(this.#gzip, 'drain');
    await this.#pass();
  }

  async finish(): Promise<void> {
    const ended = once(this.#gzip, 'end');
    this.#gzip.end();
    await ended;
    await this.#pass();
    await this.inner.finish();
  }

  async abandon(keepPartial: boolean): Promise<void> {
    this.#gzip.destroy();
    await this.inner.abandon(keepPartial);
  }

  /** Writes what zlib has compressed so far. */
  async #pass(): Promise<void> {
    if (this.#failure) throw this.#failure;
    while (this.#compressed.length > 0) {
      const bytes = this.#compressed.length === 1 ? this.#compressed[0]! : Buffer.concat(this.#compressed);
      this.#compressed = [];
      await this.inner.write(bytes);
      this.onCompressed?.(bytes);
    }
  }
}
