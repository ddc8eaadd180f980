import { AtomicFileOutput } from './atomic-file.js';
import { StreamOutput } from './sink.js';

/** Where a run's output goes: stdout as a stream, or -o FILE written atomically. */
export type Output = StreamOutput | AtomicFileOutput;

/** Opens the output: FILE (keeping its first `keepBytes` bytes on resume), else `stdout`. */
export async function openOutput(
  stdout: NodeJS.WritableStream,
  file: string | undefined,
  signal: AbortSignal,
  keepBytes = 0,
): Promise<Output> {
  return file ? AtomicFileOutput.open(file, keepBytes) : new StreamOutput(stdout, signal);
}
