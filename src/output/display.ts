import type { IO } from '../io.js';

const TABLE_FALLBACK_WIDTH = 120;

/** How a table is laid out: the terminal's width and colour for stdout, plain and 120 wide for a file or a pipe. */
export function displayOptions(io: IO, file: string | undefined): { width: number; color: boolean } {
  return { width: (!file && io.stdoutWidth()) || TABLE_FALLBACK_WIDTH, color: !file && io.colorStdout() };
}
