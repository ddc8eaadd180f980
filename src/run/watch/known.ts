/**
 * The tenders a watch knows from its last run, in compact form: their keys in
 * one Map (key → entry number), every fingerprint in one growing array of
 * 32-bit slots, and where each one's line is in the state file (for `gone`
 * rows), so 200 000 tenders take a few tens of MB, not an object each.
 */
export class KnownTenders {
  readonly #entries = new Map<string, number>();
  #slots = new Uint32Array(1 << 16);
  #used = 0;
  /** Where entry i's slots start; entry i ends where i+1 starts. */
  #starts = new Int32Array(1 << 12);
  /** What this run found of entry i: UNSEEN, UNCHANGED or CHANGED. */
  #fates = new Uint8Array(1 << 12);
  /** Where entry i's line is in the state file: its first byte and its length. */
  #lineStarts = new Float64Array(1 << 12);
  #lineLengths = new Uint32Array(1 << 12);

  get size(): number {
    return this.#entries.size;
  }

  /** Records a tender and where its line is (a repeated key keeps its first). */
  add(key: string, slots: ArrayLike<number>, length = slots.length, lineStart = 0, lineLength = 0): void {
    if (this.#entries.has(key)) return;
    const i = this.#entries.size;
    if (i + 1 >= this.#starts.length) {
      this.#starts = grow(this.#starts, i + 2);
      this.#fates = grow(this.#fates, i + 2);
      this.#lineStarts = grow(this.#lineStarts, i + 2);
      this.#lineLengths = grow(this.#lineLengths, i + 2);
    }
    this.#lineStarts[i] = lineStart;
    this.#lineLengths[i] = lineLength;
    if (this.#used + length > this.#slots.length) this.#slots = grow(this.#slots, this.#used + length);
    for (let s = 0; s < length; s++) this.#slots[this.#used + s] = slots[s]!;
    this.#used += length;
    this.#starts[i + 1] = this.#used;
    this.#entries.set(key, i);
  }

  /** Gives back what growing by doubling left unused, once everything is added. */
  compact(): void {
    this.#slots = this.#slots.slice(0, this.#used);
  }

  /** The entry of `key`, or undefined when the tender is new. */
  find(key: string): number | undefined {
    return this.#entries.get(key);
  }

  /** Entry i's slots (a view, valid until the next `add`). */
  slots(i: number): Uint32Array {
    return this.#slots.subarray(this.#starts[i]!, this.#starts[i + 1]!);
  }

  /** Marks entry i as seen by this run; false when it already was (a repeated tender). */
  markSeen(i: number): boolean {
    if (this.#fates[i] !== UNSEEN) return false;
    this.#fates[i] = UNCHANGED;
    return true;
  }

  /** Where entry i's line is in the state file: [start, end), its newline left out. */
  line(i: number): [number, number] {
    const start = this.#lineStarts[i]!;
    return [start, start + this.#lineLengths[i]!];
  }

  /** Entry i was seen with other content: the next state has a new line for it. */
  markChanged(i: number): void {
    this.#fates[i] = CHANGED;
  }

  /**
   * After a full walk, what the previous state's lines become: `carry`, byte
   * ranges [start, end) of unchanged tenders' lines (newlines included), each
   * holding `tenders[r]` lines, to copy into the next state as they are; and
   * `gone`, the [start, end) of each line this run did not see. Both in file order.
   */
  leftovers(): { carry: [number, number][]; tenders: number[]; gone: [number, number][] } {
    const carry: [number, number][] = [];
    const tenders: number[] = [];
    const gone: [number, number][] = [];
    let run: [number, number] | undefined;
    for (let i = 0; i < this.size; i++) {
      const start = this.#lineStarts[i]!;
      const end = start + this.#lineLengths[i]! + 1;
      if (this.#fates[i] === UNCHANGED) {
        if (run && run[1] === start) {
          run[1] = end;
          tenders[tenders.length - 1] = tenders.at(-1)! + 1;
        } else {
          carry.push((run = [start, end]));
          tenders.push(1);
        }
        continue;
      }
      run = undefined;
      if (this.#fates[i] === UNSEEN) gone.push([start, end - 1]);
    }
    return { carry, tenders, gone };
  }
}

const UNSEEN = 0;
const UNCHANGED = 1;
const CHANGED = 2;

function grow<T extends Uint32Array | Int32Array | Uint8Array | Float64Array>(array: T, needed: number): T {
  let size = array.length * 2;
  while (size < needed) size *= 2;
  const bigger = new (array.constructor as new (n: number) => T)(size);
  bigger.set(array);
  return bigger;
}
