import type { FileHandle } from 'node:fs/promises';
import { createExclusive, removeName } from '../../files/exclusive-file.js';
import { nodeFs, type FileSystem } from '../../files/fs.js';
import { writeFailure } from '../../files/write-error.js';
import { headerLine, summaryLine, type StateHeader, type StateSummary } from './state.js';

/**
 * Writes a watch's next state beside the current one and puts it in place only
 * by `commit()`, after the run's output was delivered: until then the current
 * state stays, so a failed run is reported again by the next.
 */
export class StateWriter {
  tenders = 0;
  #text = '';
  #copies: Buffer[] = [];
  #copied = 0;
  #offset = 0;

  private constructor(
    private readonly temp: string,
    private readonly handle: FileHandle,
    private readonly fs: FileSystem,
  ) {}

  /**
   * Creates the temporary file exclusively: a leftover of a killed run (the
   * lock is ours) or a planted link is unlinked, never written through.
   */
  static async create(temp: string, header: StateHeader, fs: FileSystem = nodeFs): Promise<StateWriter> {
    const handle = await createExclusive(temp, fs).catch((err: unknown) => {
      throw writeFailure(temp, err);
    });
    await handle.chmod(0o600).catch(() => undefined); // a query and what it found are the user's own
    const writer = new StateWriter(temp, handle, fs);
    writer.#text = headerLine(header);
    return writer;
  }

  /** A tender line (see tenderLine). */
  add(line: string): void {
    this.#text += line;
    this.tenders++;
  }

  /** Tender lines of the previous state, carried over as they were: `bytes` holding `tenders` whole lines. */
  carry(bytes: Buffer, tenders: number): void {
    this.#copies.push(bytes);
    this.#copied += bytes.length;
    this.tenders += tenders;
  }

  /** Writes what was added, once there is enough of it to be worth a write (or always, `now`). */
  async flush(now = false): Promise<void> {
    if (!now && this.#text.length + this.#copied < FLUSH_BYTES) return;
    const data = Buffer.concat([Buffer.from(this.#text), ...this.#copies]);
    this.#text = '';
    this.#copies = [];
    this.#copied = 0;
    try {
      await this.handle.write(data, 0, data.length, this.#offset);
    } catch (err) {
      throw writeFailure(this.temp, err);
    }
    this.#offset += data.length;
  }

  /** Ends the file with its summary, flushes it to disk and renames it onto `target`. */
  async commit(target: string, summary: Omit<StateSummary, 'tenders'>): Promise<void> {
    await this.flush(true); // the summary must come last, after any copied lines
    this.#text = summaryLine({ ...summary, tenders: this.tenders });
    await this.flush(true);
    try {
      await this.handle.sync();
      await this.handle.close();
      await this.fs.rename(this.temp, target);
    } catch (err) {
      throw writeFailure(target, err);
    }
  }

  /** Drops the next state: the current one stays. */
  async abandon(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await removeName(this.temp, this.fs).catch(() => undefined);
  }
}

/** Writes of about this size: a few for a large watch, not one per page. */
const FLUSH_BYTES = 1 << 20;
