import { RunError } from '../errors.js';

/** Where formatted output goes; `write` resolves once the chunk is accepted. */
export interface Sink {
  write(chunk: string): Promise<void>;
}

/** The reader of stdout went away (`| head`): stop quietly, not an error. */
export class OutputClosedError extends Error {
  override name = 'OutputClosedError';
}

/** Writes to a stream (stdout) honouring backpressure; EPIPE ends the run quietly. */
export class StreamSink implements Sink {
  #failure: Error | undefined;
  #waiting: ((err?: Error) => void) | undefined;

  constructor(private readonly stream: NodeJS.WritableStream) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      this.#failure =
        err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED'
          ? new OutputClosedError('output closed')
          : new RunError(`cannot write the output: ${err.message}`);
      this.#waiting?.(this.#failure);
    });
  }

  async write(chunk: string): Promise<void> {
    if (this.#failure) throw this.#failure;
    if (chunk === '' || this.stream.write(chunk)) return;
    await new Promise<void>((resolve, reject) => {
      const done = (err?: Error) => {
        this.#waiting = undefined;
        this.stream.removeListener('drain', done);
        if (err) reject(err);
        else resolve();
      };
      this.#waiting = done;
      this.stream.once('drain', done);
    });
  }
}
