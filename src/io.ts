/**
 * The terminal and environment a command runs in, like gh's iostreams: built
 * once by the CLI from the process, or by a test over in-memory streams. No
 * other module reads process.stdout, process.stderr, process.env, isTTY, the
 * pid or signals another process.
 */

import { EventEmitter } from 'node:events';
import { fstatSync, statSync, writeSync, type Stats } from 'node:fs';
import { basename, delimiter, dirname, isAbsolute, relative, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { pagerCommand, pagerEnv, spawnPager, type PagerLauncher, type PagerProcess } from './terminal-pager.js';

export const COLOR_MODES = ['auto', 'always', 'never'] as const;
export type ColorMode = (typeof COLOR_MODES)[number];

export type Env = Readonly<Record<string, string | undefined>>;

export interface IO {
  /** While a pager runs, its input. */
  readonly stdout: NodeJS.WritableStream;
  /** While a pager runs, held back until it exits (lines written under less would garble its screen). */
  readonly stderr: NodeJS.WritableStream;
  readonly env: Env;
  /** Whether each stream is a terminal. */
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  /** Whether stdout is a pipe or socket: another process may print what it reads onto our terminal. */
  readonly stdoutIsPipe: boolean;
  /** --color; `auto` until the flags are parsed. */
  colorMode: ColorMode;
  /** Columns of the terminal stdout is on, else $COLUMNS, else undefined. */
  stdoutWidth(): number | undefined;
  /** Columns of stderr's terminal (0 when unknown: spinners stay off). */
  stderrWidth(): number;
  /** Colour on stdout / stderr: --color, NO_COLOR, FORCE_COLOR, TERM=dumb and the terminal decide. */
  colorStdout(): boolean;
  colorStderr(): boolean;
  /**
   * Animations (spinners) on stderr: a terminal that is not dumb, and stdout
   * not a pipe, whose reader (`| jq`) would print into the spinner's line.
   */
  canAnimate(): boolean;
  /**
   * Sends stdout through a pager when stdout is a terminal that is not dumb
   * and a pager is configured (see pagerCommand). Resolves to why the pager
   * could not start, if it could not (stdout is then used directly).
   */
  startPager(): Promise<string | undefined>;
  /** Ends the pager's input, waits until the user quits it, then writes what stderr held. */
  stopPager(): Promise<void>;
  /** Whether stdout goes to a pager now. */
  readonly paging: boolean;
  /**
   * Where a line that erases itself may go now (a retry's, while a request
   * waits): stderr; while a pager runs, the terminal until the pager has been
   * given any data (it has drawn nothing yet), then nowhere.
   */
  readonly transientStderr: NodeJS.WritableStream | undefined;
}

/** A stream as Node gives it for a terminal: `isTTY` and `columns` when it is one. */
export interface TerminalStream extends NodeJS.WritableStream {
  isTTY?: boolean;
  columns?: number;
}

export interface IOParts {
  stdout: TerminalStream;
  stderr: TerminalStream;
  env: Env;
  /** Override what the streams say (tests). */
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  stdoutIsPipe?: boolean;
  /** Starts the pager process (tests give a fake). */
  launchPager?: PagerLauncher;
}

export function createIO(parts: IOParts): IO {
  const { stdout, env } = parts;
  // Read when used, not here: processIO makes it on first use (see there).
  const stderr = () => parts.stderr;
  const stdoutIsTTY = parts.stdoutIsTTY ?? Boolean(stdout.isTTY);
  const stderrIsTTY = parts.stderrIsTTY ?? Boolean(stderr().isTTY);
  const stdoutIsPipe = parts.stdoutIsPipe ?? false;
  const envColumns = Number(env.COLUMNS);
  const dumb = env.TERM === 'dumb';
  const launch = parts.launchPager ?? spawnPager;
  let pager: { child: PagerProcess; held: string[]; stderr: Writable; fed: boolean } | undefined;
  const io: IO = {
    get stdout() {
      return pager?.child.input ?? stdout;
    },
    get stderr() {
      return pager?.stderr ?? stderr();
    },
    get paging() {
      return pager !== undefined;
    },
    get transientStderr() {
      return pager === undefined ? stderr() : pager.fed ? undefined : stderr();
    },
    env,
    stdoutIsTTY,
    stderrIsTTY,
    stdoutIsPipe,
    colorMode: 'auto',
    stdoutWidth: () => (stdoutIsTTY && stdout.columns) || (envColumns > 0 ? envColumns : undefined),
    stderrWidth: () => (stderrIsTTY && ((stderr().columns ?? 0) > 0 ? stderr().columns! : envColumns > 0 ? envColumns : 0)) || 0,
    colorStdout: () => colorFor(io.colorMode, stdoutIsTTY, env, dumb),
    colorStderr: () => colorFor(io.colorMode, stderrIsTTY, env, dumb),
    canAnimate: () => stderrIsTTY && !stdoutIsPipe && !dumb && io.stderrWidth() > 0,
    async startPager() {
      const command = pagerCommand(env);
      if (pager || !stdoutIsTTY || dumb || command === undefined) return undefined;
      try {
        const child = await launch(command, pagerEnv(env));
        const held: string[] = [];
        // Node's stream modules are loaded by what needs them (see FileStdout).
        const { Writable } = await import('node:stream');
        const hold = new Writable({
          write(chunk: Buffer | string, _encoding, done) {
            held.push(chunk.toString());
            done();
          },
        });
        const started = { child, held, stderr: hold, fed: false };
        // Once the pager has data it draws: nothing else may write on its screen from then on.
        const write = child.input.write.bind(child.input) as (...args: unknown[]) => boolean;
        child.input.write = ((...args: unknown[]) => ((started.fed = true), write(...args))) as typeof child.input.write;
        pager = started;
        return undefined;
      } catch (err) {
        return `cannot run the pager '${command}': ${(err as Error).message}`;
      }
    },
    async stopPager() {
      if (!pager) return;
      const { child, held } = pager;
      child.input.end();
      await child.exited;
      pager = undefined;
      for (const text of held) stderr().write(text);
    },
  };
  return io;
}

function colorFor(mode: ColorMode, tty: boolean, env: Env, dumb: boolean): boolean {
  if (mode !== 'auto') return mode === 'always';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return tty && !dumb;
}

/**
 * The IO of this process. process.stderr is made when first written, unless it
 * may be a terminal (a character device): made for a pipe, it loads Node's
 * networking modules, a sixth of a dry run's start-up, for a run that may
 * never write to it. stdout that is a file or /dev/null is a FileStdout.
 */
export function processIO(): IO {
  let stderr: TerminalStream | undefined;
  const stats = statsOf(1);
  const stdout: TerminalStream = (stats && isFileLike(stats) && new FileStdout(1)) || process.stdout;
  // A reader that went away (`--help | head`) is not a crash; the output target has its own listener and stops the run.
  stdout.on('error', () => undefined);
  const parts: IOParts = {
    stdout,
    get stderr() {
      if (stderr === undefined) {
        stderr = process.stderr;
        // A reader that went away (`2>&1 | head`) is not a crash.
        process.stderr.on('error', () => undefined);
      }
      return stderr;
    },
    env: process.env,
    stdoutIsPipe: stats !== undefined && (stats.isFIFO() || stats.isSocket()),
  };
  if (!mayBeTerminal(2)) parts.stderrIsTTY = false;
  return createIO(parts);
}

/**
 * stdout when it is a regular file or /dev/null: each write is one synchronous
 * write, as Node's own stdout does for a file (a SyncWriteStream), but without
 * loading Node's stream modules for it, which cost a fifth of a dry run's
 * start-up (docs/performance.md). A terminal, a pipe or a socket is
 * process.stdout. Like a Writable: callbacks come after write() returns, and a
 * failed write fails its callback, emits 'error' once, and fails every later write.
 */
export class FileStdout extends EventEmitter implements NodeJS.WritableStream {
  writable = true;
  #failure: Error | undefined;

  constructor(
    private readonly fd: number,
    /** fs.writeSync, or a failing one (tests). */
    private readonly writeTo: (fd: number, buffer: Uint8Array, offset: number) => number = writeSync,
  ) {
    super();
  }

  write(chunk: string | Uint8Array, cb?: (err?: Error | null) => void): boolean;
  write(chunk: string, encoding?: BufferEncoding, cb?: (err?: Error | null) => void): boolean;
  write(chunk: string | Uint8Array, encoding?: BufferEncoding | ((err?: Error | null) => void), cb?: (err?: Error | null) => void): boolean {
    const done = typeof encoding === 'function' ? encoding : cb;
    const failure = this.#failure ?? this.#write(typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8') : chunk);
    later(() => done?.(failure ?? null));
    return failure === undefined;
  }

  end(cb?: () => void): this;
  end(chunk: string | Uint8Array, cb?: () => void): this;
  end(chunk: string, encoding?: BufferEncoding, cb?: () => void): this;
  end(chunk?: string | Uint8Array | (() => void), encoding?: BufferEncoding | (() => void), cb?: () => void): this {
    const done = [chunk, encoding, cb].find((arg) => typeof arg === 'function') as (() => void) | undefined;
    if (typeof chunk === 'string' || chunk instanceof Uint8Array) this.write(chunk as string, typeof encoding === 'string' ? encoding : 'utf8');
    this.writable = false;
    later(() => {
      this.emit('finish');
      done?.();
    });
    return this;
  }

  #write(bytes: Uint8Array): Error | undefined {
    try {
      for (let at = 0; at < bytes.length; ) at += this.writeTo(this.fd, bytes, at);
      return undefined;
    } catch (err) {
      this.#failure = err as Error;
      this.writable = false;
      later(() => this.emit('error', err));
      return this.#failure;
    }
  }
}

/** After the current task, as a Writable's callbacks come: a promise's reaction (queueMicrotask would load Node's async hooks). */
function later(fn: () => void): void {
  void Promise.resolve().then(fn);
}

function statsOf(fd: number): Stats | undefined {
  try {
    return fstatSync(fd);
  } catch {
    return undefined; // closed: nothing reads it
  }
}

/** A regular file, or /dev/null (a character device, yet no terminal): what Node itself writes synchronously. */
function isFileLike(stats: Stats): boolean {
  if (stats.isFile()) return true;
  if (!stats.isCharacterDevice()) return false;
  try {
    const devNull = statSync('/dev/null');
    return devNull.isCharacterDevice() && devNull.rdev === stats.rdev;
  } catch {
    return false;
  }
}

function mayBeTerminal(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

/** How this process was started, as words a user can type again: see `invocationOf`. */
export function processInvocation(): string[] {
  return invocationOf(process.argv[1], process.env, process.cwd());
}

/**
 * The words that ran the CLI, for commands it tells the user to run next (the
 * next-page hint): `npx tenders` under npx, `tenders` (the name) from a
 * directory on PATH, `node bin/tenders.js` (relative to the working directory
 * when it lies below it) for the script run by path.
 */
export function invocationOf(script: string | undefined, env: Env, cwd: string): string[] {
  // npx (npm exec) says what it runs; a `npx vitest` that spawns us names vitest instead.
  if (env.npm_command === 'exec' && /^'?tenders\b/.test(env.npm_lifecycle_script ?? '')) return ['npx', 'tenders'];
  if (!script) return ['tenders'];
  const onPath = (env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && resolve(cwd, dir) === dirname(script));
  if (onPath && !script.endsWith('.js')) return [basename(script)];
  const below = relative(cwd, script);
  const path = below.startsWith('..') || isAbsolute(below) ? script : below;
  return script.endsWith('.js') ? ['node', path] : [path.includes('/') ? path : `./${path}`];
}

/** This process's id (what a lock file records). */
export function processId(): number {
  return process.pid;
}

/** Whether process `pid` runs on this host: signal 0 asks without sending (EPERM: it runs, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
