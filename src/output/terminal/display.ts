import type { IO } from '../../io.js';

/** How a table is laid out: the terminal's width and colour on stdout; a file or a pipe has no width (its table is as wide as its data). */
export function displayOptions(io: IO, toStdout: boolean): { width: number | undefined; color: boolean } {
  return { width: toStdout ? io.stdoutWidth() : undefined, color: toStdout && io.colorStdout() };
}
