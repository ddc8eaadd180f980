import { unlinkSync } from 'node:fs';

/**
 * Lock files this process holds (files/lock.ts adds and removes them), to tell
 * its own locks from a dead process's that had the same pid. A file of its own
 * so that the CLI's entry can release them without loading what takes a lock
 * (node:os, node:fs/promises): a run that takes none never loads those.
 */
export const heldLocks = new Set<string>();

/**
 * Removes the locks still held, synchronously: for a process about to exit at
 * once (a second Ctrl-C), which cannot wait for its run to unwind.
 */
export function releaseHeldLocksSync(): void {
  for (const path of heldLocks) {
    try {
      unlinkSync(path);
    } catch {
      // gone already
    }
  }
  heldLocks.clear();
}
