import { watch } from 'node:fs';

/**
 * Calls `then` once, the first time `check` holds: at once, or after a change
 * in `dir` (a file created, written or renamed into place). A wait on
 * file-system events, never a poll. Returns what stops watching.
 */
export function whenDir(dir: string, check: () => Promise<boolean>, then: () => void): () => void {
  let done = false;
  const watcher = watch(dir);
  const stop = () => {
    done = true;
    watcher.close();
  };
  const look = () =>
    void check().then(
      (ok) => {
        if (ok && !done) {
          stop();
          then();
        }
      },
      () => undefined, // not there yet, or being replaced: the next change looks again
    );
  watcher.on('change', look);
  look();
  return stop;
}
