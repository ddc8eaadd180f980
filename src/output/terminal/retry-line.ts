import type { IO } from '../../io.js';
import { escapeControls } from './sanitize.js';

/** A spinner that shows a retry's line in place of its own text while it lasts (progress.ts). */
export interface RetryHolder {
  note(line: string | undefined): void;
}

/** The spinner running on an IO's stderr, which the retry line must not fight for the same line. */
const spinners = new WeakMap<IO, RetryHolder>();

/** Called by the spinner when it starts (and with undefined when it stops). */
export function holdRetryLines(io: IO, holder: RetryHolder | undefined): void {
  if (holder) spinners.set(io, holder);
  else spinners.delete(io);
}

/**
 * The line a person at a terminal sees while a request is retried: each
 * retry's line replaces the last (carriage return, erase to the end of the
 * line; or the spinner's text while a spinner runs), cut to the width so that
 * it never wraps, and is erased when the request ends, before the answer or
 * the final error is printed. Under a pager (search's table) it goes to the
 * terminal until the pager is given data, which the line is erased before. Undefined where nothing may animate (not a
 * terminal, a dumb one, stdout piped into a reader that prints on the same
 * screen): cron sees only the final error.
 */
export function retryLine(io: IO): { show(line: string): void; clear(): void } | undefined {
  if (!io.canAnimate()) return undefined;
  // Where the last line went (stderr, or the terminal under a pager that has drawn nothing yet): erased there.
  let shown: NodeJS.WritableStream | undefined;
  return {
    show(line) {
      const text = escapeControls(line);
      const spinner = spinners.get(io);
      if (spinner) spinner.note(text);
      else if ((shown = io.transientStderr)) shown.write(`\r${text.slice(0, io.stderrWidth() - 1)}\u001b[K`);
    },
    clear() {
      const spinner = spinners.get(io);
      if (spinner) spinner.note(undefined);
      else shown?.write('\r\u001b[K');
      shown = undefined;
    },
  };
}
