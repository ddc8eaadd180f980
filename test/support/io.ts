import { Writable } from 'node:stream';
import { createIO, type Env, type IO } from '../../src/io.js';
import type { PagerLauncher } from '../../src/terminal-pager.js';

/**
 * A writable that keeps what it is given, sized like a terminal when asked;
 * as a terminal it moves the cursor and clears lines with the sequences a
 * real one gets (see screen.ts for what they show).
 */
export class Capture extends Writable {
  text = '';
  columns?: number;
  isTTY?: boolean;

  cursorTo(x: number): boolean {
    return this.write(`\u001b[${x + 1}G`);
  }

  moveCursor(dx: number, dy: number): boolean {
    const horizontal = dx < 0 ? `\u001b[${-dx}D` : dx > 0 ? `\u001b[${dx}C` : '';
    const vertical = dy < 0 ? `\u001b[${-dy}A` : dy > 0 ? `\u001b[${dy}B` : '';
    return this.write(horizontal + vertical);
  }

  clearLine(dir: -1 | 0 | 1): boolean {
    return this.write(`\u001b[${dir < 0 ? 1 : dir > 0 ? 0 : 2}K`);
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.text += chunk.toString();
    done();
  }
}

export interface MemoryIOOptions {
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  /** stdout is a pipe (`| jq`): spinners stay off. */
  stdoutPipe?: boolean;
  /** Terminal width of both streams. */
  columns?: number;
  env?: Env;
  /** The pager; by default a fake that shows its input on stdout, as a pager shows it on the terminal. */
  launchPager?: PagerLauncher;
}

/** The pagers a fake launcher started, and the environment each got. */
export interface PagerLog {
  launches: { command: string; env: Env }[];
}

/** A pager that passes its input to `screen` and exits when the input ends. */
export function fakePager(screen: Writable, log: PagerLog): PagerLauncher {
  return async (command, env) => {
    log.launches.push({ command, env });
    let exit!: () => void;
    const exited = new Promise<void>((resolve) => (exit = resolve));
    const input = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        screen.write(chunk, done);
      },
      final(done) {
        exit();
        done();
      },
    });
    return { input, exited };
  };
}

/** An IO over in-memory streams, with chosen terminal-ness and width. */
export function memoryIO(opts: MemoryIOOptions = {}): { io: IO; stdout: Capture; stderr: Capture; pager: PagerLog } {
  const stdout = new Capture();
  const stderr = new Capture();
  stdout.columns = stderr.columns = opts.columns;
  const pager: PagerLog = { launches: [] };
  stdout.isTTY = opts.stdoutTTY;
  stderr.isTTY = opts.stderrTTY;
  const io = createIO({
    stdout,
    stderr,
    env: opts.env ?? {},
    stdoutIsTTY: opts.stdoutTTY ?? false,
    stderrIsTTY: opts.stderrTTY ?? false,
    stdoutIsPipe: opts.stdoutPipe ?? false,
    launchPager: opts.launchPager ?? fakePager(stdout, pager),
  });
  return { io, stdout, stderr, pager };
}
