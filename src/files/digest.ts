import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Chunk } from './sink.js';

/** The SHA-256 and size of an output, hashed chunk by chunk as it is written (for --receipt). */
export class OutputDigest {
  bytes = 0;
  readonly #hash: Hash = createHash('sha256');

  /** A digest that starts with the first `bytes` bytes of `path`: the part a resumed export keeps. */
  static async ofPrefix(path: string, bytes: number): Promise<OutputDigest> {
    const digest = new OutputDigest();
    if (bytes === 0) return digest;
    for await (const chunk of createReadStream(path, { start: 0, end: bytes - 1 })) {
      digest.#hash.update(chunk as Buffer);
      digest.bytes += (chunk as Buffer).length;
    }
    return digest;
  }

  update(chunk: Chunk): void {
    if (chunk.length === 0) return;
    this.#hash.update(chunk);
    this.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
  }

  /** The hex SHA-256 of everything so far (the digest can go on). */
  sha256(): string {
    return this.#hash.copy().digest('hex');
  }
}
