/**
 * The tenders a watch knows from its last run, in compact form: their keys in
 * one Map (key → entry number) and every fingerprint in one growing array of
 * 32-bit slots, so 200 000 tenders take a few tens of MB, not an object each.
 */
export class KnownTenders {
  readonly #entries = new Map<string, number>();
  #slots = new Uint32Array(1 << 16);
  #used = 0;
  /** Where entry i's slots start; entry i ends where i+1 starts. */
  #starts = new Int32Array(1 << 12);
  #seen = new Uint8Array(1 << 12);

  get size(): number {
    return this.#entries.size;
  }

  /** Records a tender (duplicate keys keep their first fingerprint). */
  add(key: string, slots: ArrayLike<number>, length = slots.length): void {
    if (this.#entries.has(key)) return;
    const i = this.#entries.size;
    if (i + 1 >= this.#starts.length) {
      this.#starts = grow(this.#starts, i + 2);
      this.#seen = grow(this.#seen, i + 2);
    }
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
    if (this.#seen[i]) return false;
    this.#seen[i] = 1;
    return true;
  }

  seen(i: number): boolean {
    return this.#seen[i] === 1;
  }
}

function grow<T extends Uint32Array | Int32Array | Uint8Array>(array: T, needed: number): T {
  let size = array.length * 2;
  while (size < needed) size *= 2;
  const bigger = new (array.constructor as new (n: number) => T)(size);
  bigger.set(array);
  return bigger;
}
