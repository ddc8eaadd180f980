import { expect } from 'vitest';

/**
 * `expect(buffer).toEqual(otherBuffer)` compares the bytes with Buffer#equals
 * (set up for every test file, vitest.config.ts setupFiles). vitest's own
 * deep equality walks a Buffer index by index, as it walks an object's keys:
 * seconds per MiB, which tests comparing whole exports byte for byte (a
 * resumed export with a clean one, a database file before and after a
 * refused run) paid on every run. Same verdict, same diff when they differ.
 */
expect.addEqualityTesters([
  function bytesEqual(a: unknown, b: unknown): boolean | undefined {
    return Buffer.isBuffer(a) && Buffer.isBuffer(b) ? a.equals(b) : undefined;
  },
]);
