import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { isAbsolute, join, dirname } from 'node:path';
import { isatty } from 'node:tty';
import { UsageError } from '../errors.js';
import { AtomicFileOutput } from './atomic-file.js';
import { nodeFs, type FileSystem } from './fs.js';
import { StreamOutput } from './sink.js';
import { writeFailure } from './write-error.js';

/** Where a run's output goes: stdout or a device as a stream, or -o FILE written atomically. */
export type Output = StreamOutput | AtomicFileOutput;

/**
 * What `-o` names, decided before any request: stdout (no -o, or `-o -`); a
 * device, FIFO or socket (written straight through, never replaced); or a
 * file, written atomically at `path`, which is where a symbolic link given as
 * FILE leads (the link stays), with its partial, state and lock files beside it.
 */
export type Target = { kind: 'stdout' } | { kind: 'device'; path: string } | { kind: 'file'; path: string };

const MAX_LINK_HOPS = 40;

/** Decides what `-o name` is; a UsageError (exit 2) when it cannot work. */
export async function resolveTarget(name: string | undefined, resume: boolean, fs: FileSystem = nodeFs): Promise<Target> {
  if (name === undefined || name === '-') return { kind: 'stdout' };
  if (name.endsWith('/')) throw new UsageError(`-o ${name} names a directory: give a file name, e.g. ${name}tenders.csv`);
  const stats = await fs.stat(name).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined; // absent, or a link to a file still to be made
    throw unusable(name, err);
  });
  if (stats?.isDirectory()) throw new UsageError(`-o ${name} is a directory: give a file name inside it, e.g. ${join(name, 'tenders.csv')}`);
  if (stats && !stats.isFile()) {
    if (stats.isSocket()) throw new UsageError(`-o ${name} is a socket, which cannot be written as a file`);
    if (resume) throw new UsageError(`--resume needs a file: -o ${name} is a device or FIFO, written straight through`);
    return { kind: 'device', path: name };
  }
  const path = await linkEnd(name, fs);
  await checkDirectory(name, dirname(path), fs);
  return { kind: 'file', path };
}

/** Opens the output the target names (on resume, FILE.partial keeps its first `keepBytes` bytes). */
export async function openOutput(
  target: Target,
  opts: { stdout: NodeJS.WritableStream; stdoutIsTTY: boolean; signal: AbortSignal; keepBytes?: number; fs?: FileSystem },
): Promise<Output> {
  const fs = opts.fs ?? nodeFs;
  switch (target.kind) {
    case 'stdout':
      return new StreamOutput(opts.stdout, opts.signal, opts.stdoutIsTTY);
    case 'file':
      return AtomicFileOutput.open(target.path, opts.keepBytes ?? 0, fs);
    case 'device':
      return openDevice(target.path, opts.signal, fs);
  }
}

/**
 * A device or FIFO, opened for writing without O_CREAT (it can never become a
 * new regular file) and written as a stream: no partial, no rename. Opening a
 * FIFO waits for its reader, as a shell redirection does; Ctrl-C still stops it.
 */
async function openDevice(path: string, signal: AbortSignal, fs: FileSystem): Promise<StreamOutput> {
  const opening = fs.open(path, constants.O_WRONLY | constants.O_NOCTTY);
  const handle = await new Promise<FileHandle>((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason as Error);
      opening.then((late) => late.close(), () => undefined);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    opening.then(
      (opened) => {
        signal.removeEventListener('abort', onAbort);
        resolve(opened);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(writeFailure(path, err));
      },
    );
  });
  const stream = handle.createWriteStream();
  return new DeviceOutput(stream, signal, isatty(handle.fd), path);
}

/** A stream output that owns its stream: closed when done or abandoned. */
class DeviceOutput extends StreamOutput {
  constructor(
    private readonly file: NodeJS.WritableStream & { destroy(): void },
    signal: AbortSignal,
    terminal: boolean,
    path: string,
  ) {
    super(file, signal, terminal, path);
  }

  override async finish(): Promise<void> {
    await super.finish();
    await new Promise<void>((resolve) => this.file.end(() => resolve()));
  }

  override async abandon(): Promise<void> {
    this.file.destroy();
  }
}

/** Where a chain of symbolic links ends: the file to write, existing or not. */
async function linkEnd(name: string, fs: FileSystem): Promise<string> {
  let path = name;
  for (let hop = 0; hop < MAX_LINK_HOPS; hop++) {
    const stats = await fs.lstat(path).catch(() => undefined);
    if (!stats?.isSymbolicLink()) return path;
    const to = await fs.readlink(path);
    path = isAbsolute(to) ? to : join(dirname(path), to);
  }
  throw new UsageError(`-o ${name}: too many levels of symbolic links`);
}

/** The directory must exist and be writable, or the export would fail only at its end. */
async function checkDirectory(name: string, dir: string, fs: FileSystem): Promise<void> {
  const stats = await fs.stat(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') throw new UsageError(`cannot write -o ${name}: the directory ${dir} does not exist`);
    throw unusable(name, err);
  });
  if (!stats.isDirectory()) throw new UsageError(`cannot write -o ${name}: ${dir} is not a directory`);
  await fs.access(dir, constants.W_OK).catch((err: NodeJS.ErrnoException) => {
    throw unusable(name, err, dir);
  });
}

function unusable(name: string, err: NodeJS.ErrnoException, dir?: string): UsageError {
  const where = dir ? `the directory ${dir}` : name;
  switch (err.code) {
    case 'EACCES':
    case 'EPERM':
      return new UsageError(`cannot write -o ${name}: ${where} is not writable (permission denied)`);
    case 'EROFS':
      return new UsageError(`cannot write -o ${name}: ${where} is on a read-only file system`);
    case 'ENOTDIR':
      return new UsageError(`cannot write -o ${name}: a part of its path is not a directory`);
    case 'ELOOP':
      return new UsageError(`-o ${name}: too many levels of symbolic links`);
    default:
      return new UsageError(`cannot write -o ${name}: ${err.message}`);
  }
}
