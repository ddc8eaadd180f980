import { RunError } from '../errors.js';

/** Where formatted output goes; `write` resolves once the chunk is accepted. */
export interface Sink {
  write(chunk: string): Promise<void>;
}

/** The reader of stdout went away (`| head`): stop quietly, not an error. */
export class OutputClosedError extends Error {
  override name = 'OutputClosedError';
}

/**
 * Writes to a stream (stdout) honouring backpressure. EPIPE ends the run
 * quietly; any other write error (a full disk) fails it; a signal stops a
 * write that waits on a reader who does not read.
 */
export class StreamSink implements Sink {
  #failure: Error | undefined;
  #waiting: ((err?: Error) => void) | undefined;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly signal?: AbortSignal,
  ) {
    stream.on('error', (err) => this.#fail(err));
  }

  async write(chunk: string): Promise<void> {
    if (this.#failure) throw this.#failure;
    if (chunk === '') return;
    if (this.stream.write(chunk, (err) => err && this.#fail(err))) return;
    await this.#drained();
  }

  /** Resolves once everything written so far is flushed, or fails with why it was not. */
  async finish(): Promise<void> {
    if (this.#failure) throw this.#failure;
    await new Promise<void>((resolve) => this.stream.write('', () => resolve()));
    if (this.#failure) throw this.#failure;
  }

  #fail(err: NodeJS.ErrnoException): void {
    this.#failure ??=
      err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED'
        ? new OutputClosedError('output closed')
        : new RunError(`cannot write the output: ${err.message}`);
    this.#waiting?.(this.#failure);
  }

  #drained(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const done = (err?: Error) => {
        this.#waiting = undefined;
        this.stream.removeListener('drain', onDrain);
        this.signal?.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve();
      };
      const onDrain = () => done();
      const onAbort = () => done(this.signal!.reason as Error);
      this.#waiting = done;
      this.stream.once('drain', onDrain);
      if (this.signal?.aborted) onAbort();
      else this.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
