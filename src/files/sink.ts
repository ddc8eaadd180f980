import { writeFailure } from './write-error.js';

/** What a formatter hands an output: text, or bytes (Parquet). */
export type Chunk = string | Uint8Array;

/**
 * Where formatted output goes. `write` resolves once the chunk is accepted;
 * `finish` once everything is delivered (stdout flushed, or the file
 * committed); `abandon` releases it after a failure or an interruption.
 */
export interface OutputTarget {
  readonly kind: 'stream' | 'file';
  /** A terminal reads it: control characters in the data must be neutralised. */
  readonly terminal: boolean;
  write(chunk: Chunk): Promise<void>;
  finish(): Promise<void>;
  abandon(keepPartial: boolean): Promise<void>;
}

/** The reader of stdout went away (`| head`): stop quietly, not an error. */
export class OutputClosedError extends Error {
  override name = 'OutputClosedError';
}

/**
 * Writes to a stream (stdout, a device) honouring backpressure. EPIPE ends
 * the run quietly (OutputClosedError, which the CLI maps to exit 0); any other
 * write error (a full disk) fails it, said in words; a signal stops a write
 * that waits on a reader who does not read.
 */
export class StreamOutput implements OutputTarget {
  readonly kind = 'stream';
  #failure: Error | undefined;
  #waiting: ((err?: Error) => void) | undefined;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    /** The run's signal, or how to get it when a write first waits (printTo). */
    private readonly abortSignal?: AbortSignal | (() => AbortSignal),
    readonly terminal = false,
    /** How error lines name it: "the output", or a device's path. */
    private readonly name = 'the output',
  ) {
    stream.on('error', (err) => this.#fail(err));
  }

  async write(chunk: Chunk): Promise<void> {
    if (this.#failure) throw this.#failure;
    if (chunk.length === 0) return;
    if (this.stream.write(chunk, (err) => err && this.#fail(err))) return;
    await this.#drained();
  }

  async finish(): Promise<void> {
    if (this.#failure) throw this.#failure;
    await new Promise<void>((resolve) => this.stream.write('', () => resolve()));
    if (this.#failure) throw this.#failure;
  }

  async abandon(): Promise<void> {}

  #fail(err: NodeJS.ErrnoException): void {
    this.#failure ??=
      err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED'
        ? new OutputClosedError('output closed')
        : writeFailure(this.name, err);
    this.#waiting?.(this.#failure);
  }

  get signal(): AbortSignal | undefined {
    return typeof this.abortSignal === 'function' ? this.abortSignal() : this.abortSignal;
  }

  #drained(): Promise<void> {
    const signal = this.signal;
    return new Promise<void>((resolve, reject) => {
      const done = (err?: Error) => {
        this.#waiting = undefined;
        this.stream.removeListener('drain', onDrain);
        signal?.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve();
      };
      const onDrain = () => done();
      const onAbort = () => done(signal!.reason as Error);
      this.#waiting = done;
      this.stream.once('drain', onDrain);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** Writes one short text whole (a count, a list of fields) and waits until it is delivered. */
export async function printTo(stream: NodeJS.WritableStream, signal: AbortSignal | (() => AbortSignal), text: Chunk): Promise<void> {
  const out = new StreamOutput(stream, signal);
  await out.write(text);
  await out.finish();
}
