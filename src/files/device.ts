import { close, constants, createWriteStream, open } from 'node:fs';
import { Socket } from 'node:net';
import { isatty, WriteStream as TerminalStream } from 'node:tty';
import { promisify } from 'node:util';
import { StreamOutput } from './sink.js';
import { writeFailure } from './write-error.js';

const openFd = promisify(open);
const closeFd = promisify(close);
const { O_WRONLY, O_RDONLY, O_NOCTTY, O_NONBLOCK, O_APPEND } = constants;

/**
 * Opens a device or FIFO that -o names and writes it as a stream: no partial,
 * no rename, and never O_CREAT, so it cannot become a new regular file. A FIFO
 * is written like a pipe on stdout (non-blocking, EPIPE when its reader goes),
 * a terminal like a terminal, any other device as a file; `append` for the
 * regular file behind a descriptor (/dev/stdout redirected by the shell).
 */
export async function openDevice(
  path: string,
  { fifo, append = false }: { fifo: boolean; append?: boolean },
  signal: AbortSignal,
  onWait: (line: string) => void,
): Promise<StreamOutput> {
  if (signal.aborted) throw signal.reason;
  const flags = O_WRONLY | O_NOCTTY | (append ? O_APPEND : 0);
  const fd = fifo ? await openFifo(path, signal, onWait) : await openFd(path, flags).catch((err: unknown) => Promise.reject(writeFailure(path, err)));
  const terminal = isatty(fd);
  const stream = terminal
    ? new TerminalStream(fd)
    : fifo
      ? new Socket({ fd, readable: false, writable: true })
      : createWriteStream(path, { fd });
  return new DeviceOutput(stream, signal, terminal, path);
}

/**
 * Opening a FIFO for writing waits for its reader, as a shell redirection
 * does. The wait happens in a libuv thread that nothing can cancel, and a
 * process cannot exit while one of its threads waits: on Ctrl-C the FIFO is
 * opened for reading for a moment, which ends the wait.
 */
async function openFifo(path: string, signal: AbortSignal, onWait: (line: string) => void): Promise<number> {
  try {
    return await openFd(path, O_WRONLY | O_NONBLOCK); // at once when a reader is there
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENXIO') throw writeFailure(path, err);
  }
  onWait(`waiting for a reader of ${path} (a FIFO)…`);
  const opening = openFd(path, O_WRONLY);
  return new Promise<number>((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason as Error);
      openFd(path, O_RDONLY | O_NONBLOCK).then(closeFd, () => undefined);
      opening.then(closeFd, () => undefined);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    opening.then(
      (fd) => {
        signal.removeEventListener('abort', onAbort);
        resolve(fd);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(writeFailure(path, err));
      },
    );
  });
}

/** A stream output that owns its stream: ended when done, destroyed when abandoned. */
class DeviceOutput extends StreamOutput {
  constructor(
    private readonly device: NodeJS.WritableStream & { destroy(): void },
    signal: AbortSignal,
    terminal: boolean,
    path: string,
  ) {
    super(device, signal, terminal, path);
  }

  override async finish(): Promise<void> {
    await super.finish();
    await new Promise<void>((resolve) => this.device.end(() => resolve()));
  }

  override async abandon(): Promise<void> {
    this.device.destroy();
  }
}
