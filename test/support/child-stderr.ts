import type { ChildProcess } from 'node:child_process';
import { access } from 'node:fs/promises';
import { dirname } from 'node:path';
import { whenDir } from './dir-events.js';

/** Calls `then` for each match of `pattern` in the child's stderr as it arrives (once unless global). */
export function onStderr(child: ChildProcess, pattern: RegExp, then: () => void | Promise<void>): void {
  let fired = false;
  child.stderr!.on('data', (chunk: Buffer) => {
    const matches = chunk.toString().match(new RegExp(pattern.source, 'g')) ?? [];
    for (let i = 0; i < matches.length; i++) {
      if (pattern.global || !fired) void then();
      fired = true;
    }
  });
}

/**
 * Kills the child with `signal` once its --verbose stderr shows `n` requests, and
 * `file` exists when one is given (a file the run makes, which on a busy machine
 * may come after the nth request).
 */
export function killAfterRequests(n: number, signal: NodeJS.Signals, file?: string) {
  return (child: ChildProcess) => {
    let seen = 0;
    onStderr(child, /\* POST/g, () => {
      if (++seen !== n) return;
      if (!file) child.kill(signal);
      else whenDir(dirname(file), () => access(file).then(() => true), () => child.kill(signal));
    });
  };
}
