import { constants } from 'node:fs';
import { isAbsolute, join, dirname, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { AtomicFileOutput } from './atomic-file.js';
import type { GzipOutput } from './gzip-output.js';
import { openDevice } from './device.js';
import { nodeFs, type FileSystem } from './fs.js';
import { StreamOutput } from './sink.js';
import { unusableTarget } from './write-error.js';

/** Where a run's output goes: stdout or a device as a stream, or -o FILE written atomically; compressed for `-o FILE.gz`. */
export type Output = StreamOutput | AtomicFileOutput | GzipOutput;

/**
 * What `-o` names, decided before any request: stdout (no -o, or `-o -`); a
 * device, FIFO or socket, or a descriptor of this process such as /dev/stdout
 * whatever it leads to (written straight through, never replaced); or a file,
 * written atomically at `path`, which is where a symbolic link given as FILE
 * leads (the link stays), with its partial, state and lock files beside it.
 */
export type Target = { kind: 'stdout' } | { kind: 'device'; path: string; fifo: boolean; append?: boolean } | { kind: 'file'; path: string };

const MAX_LINK_HOPS = 40;

/** A descriptor the process already holds (/dev/stdout leads to /proc/self/fd/1): where the shell's redirection points. */
const DESCRIPTOR = /^\/(?:dev\/(?:stdout|stderr|fd\/\d+)|proc\/(?:self|thread-self|\d+)\/fd\/\d+)$/;

const STDOUT_NAMES = new Set(['/dev/stdout', '/dev/fd/1', '/proc/self/fd/1']);

/**
 * Decides what `-o name` is (or another flag's file, such as --receipt's,
 * named by `flag` in messages); a UsageError (exit 2) when it cannot work.
 */
export async function resolveTarget(name: string | undefined, resume: boolean, fs: FileSystem = nodeFs, flag = '-o'): Promise<Target> {
  if (name === undefined || name === '-') return { kind: 'stdout' };
  const named = `${flag} ${name}`;
  if (name.endsWith('/')) throw new UsageError(`${named} names a directory: give a file name, e.g. ${name}tenders.csv`);
  const stats = await fs.stat(name).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined; // absent, or a link to a file still to be made
    throw unusableTarget(named, name, err);
  });
  if (stats?.isDirectory()) throw new UsageError(`${named} is a directory: give a file name inside it, e.g. ${join(name, 'tenders.csv')}`);
  if (stats && !stats.isFile()) {
    // A service manager or a parent process may give us a socket as stdout: the name still means stdout.
    if (stats.isSocket() && flag === '-o' && STDOUT_NAMES.has(name)) return { kind: 'stdout' };
    if (stats.isSocket()) throw new UsageError(`${named} is a socket, which cannot be written as a file`);
    if (resume) throw new UsageError(`--resume needs a file: ${named} is a device or FIFO, written straight through`);
    return { kind: 'device', path: name, fifo: stats.isFIFO() };
  }
  const { path, descriptor } = await linkEnd(named, name, fs);
  if (descriptor) {
    // `-o /dev/stdout >> log` appends to log, as the redirection says; replacing log would lose what it held.
    if (resume) throw new UsageError(`--resume needs a file: ${named} is a descriptor of this process, written straight through`);
    return { kind: 'device', path: name, fifo: false, append: true };
  }
  await checkDirectory(named, dirname(path), fs);
  return { kind: 'file', path };
}

/** Whether two targets are one file (paths resolved): a run that wrote it as both would lose one of them. */
export function sameFile(a: Target | undefined, b: Target | undefined): boolean {
  return a?.kind === 'file' && b?.kind === 'file' && resolve(a.path) === resolve(b.path);
}

/** Opens the output the target names (on resume, FILE.partial keeps its first `keepBytes` bytes). */
export async function openOutput(
  target: Target,
  opts: {
    stdout: NodeJS.WritableStream;
    stdoutIsTTY: boolean;
    signal: AbortSignal;
    keepBytes?: number;
    fs?: FileSystem;
    /** Told when a FIFO has no reader yet and the run waits for one. */
    onWait?: (line: string) => void;
    /** `-o FILE.gz`: compress whatever is written. */
    gzip?: boolean;
  },
): Promise<Output> {
  const out = await openPlain(target, opts);
  if (!opts.gzip) return out;
  const { GzipOutput } = await import('./gzip-output.js'); // zlib only for a .gz
  return new GzipOutput(out);
}

async function openPlain(target: Target, opts: Parameters<typeof openOutput>[1]): Promise<StreamOutput | AtomicFileOutput> {
  const fs = opts.fs ?? nodeFs;
  switch (target.kind) {
    case 'stdout':
      return new StreamOutput(opts.stdout, opts.signal, opts.stdoutIsTTY);
    case 'file':
      return AtomicFileOutput.open(target.path, opts.keepBytes ?? 0, fs);
    case 'device':
      return openDevice(target.path, { fifo: target.fifo, append: target.append }, opts.signal, opts.onWait ?? (() => {}));
  }
}

/** Where a chain of symbolic links ends: the file to write, existing or not; and whether it passed through a descriptor. */
async function linkEnd(named: string, name: string, fs: FileSystem): Promise<{ path: string; descriptor: boolean }> {
  let path = name;
  let descriptor = false;
  for (let hop = 0; hop < MAX_LINK_HOPS; hop++) {
    descriptor ||= DESCRIPTOR.test(path);
    const stats = await fs.lstat(path).catch(() => undefined);
    if (!stats?.isSymbolicLink()) return { path, descriptor };
    const to = await fs.readlink(path);
    path = isAbsolute(to) ? to : join(dirname(path), to);
  }
  throw new UsageError(`${named}: too many levels of symbolic links`);
}

/** The directory must exist and be writable, or the export would fail only at its end. */
async function checkDirectory(named: string, dir: string, fs: FileSystem): Promise<void> {
  const stats = await fs.stat(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') throw new UsageError(`cannot write ${named}: the directory ${dir} does not exist`);
    throw unusableTarget(named, `the directory ${dir}`, err);
  });
  if (!stats.isDirectory()) throw new UsageError(`cannot write ${named}: ${dir} is not a directory`);
  await fs.access(dir, constants.W_OK).catch((err: NodeJS.ErrnoException) => {
    throw unusableTarget(named, `the directory ${dir}`, err);
  });
}
