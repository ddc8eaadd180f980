import { Writable } from 'node:stream';
import { createIO, type Env, type IO } from '../../src/io.js';

/** A writable that keeps what it is given, sized like a terminal when asked. */
export class Capture extends Writable {
  text = '';
  columns?: number;

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.text += chunk.toString();
    done();
  }
}

export interface MemoryIOOptions {
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  /** Terminal width of both streams. */
  columns?: number;
  env?: Env;
}

/** An IO over in-memory streams, with chosen terminal-ness and width. */
export function memoryIO(opts: MemoryIOOptions = {}): { io: IO; stdout: Capture; stderr: Capture } {
  const stdout = new Capture();
  const stderr = new Capture();
  stdout.columns = stderr.columns = opts.columns;
  const io = createIO({
    stdout,
    stderr,
    env: opts.env ?? {},
    stdoutIsTTY: opts.stdoutTTY ?? false,
    stderrIsTTY: opts.stderrTTY ?? false,
  });
  return { io, stdout, stderr };
}
