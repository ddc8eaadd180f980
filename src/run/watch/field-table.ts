/**
 * What a watch remembers of a tender's content: one 32-bit hash per leaf dot
 * path ("deadline", "estimatedValue.amount"), in the slots of a path table
 * kept with the state. Equal slots mean equal content; the slots that differ
 * name the changed fields. Hashes, not values: the state stays small.
 */

import { isObject, RawNumber, stringifyJson } from '../../model/exact-json.js';

/** Distinct paths told apart; leaves beyond them share the last slot, named OTHER_FIELDS. */
export const MAX_FIELDS = 64;
export const OTHER_FIELDS = '*';
/** A slot's value when the tender has no such leaf (a real hash is never 0). */
const ABSENT = 0;

interface PathNode {
  /** The keys from the tender down to this node. */
  keys: string[];
  slot?: number;
  children?: Map<string, PathNode>;
}

/** FNV-1a over UTF-16 units, then murmur3's finaliser for avalanche; never 0. */
export function hashString(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0 || 1;
}

/** A leaf value's hash; the type is part of it, so "1" and 1 differ. */
export function hashValue(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return hashString(value, 0x9e3779b1);
    case 'number':
    case 'bigint':
      return hashString(String(value), 0x85ebca6b);
    case 'boolean':
      return value ? 0x27d4eb2f : 0x165667b1;
    default:
      if (value instanceof RawNumber) return hashString(value.text, 0x85ebca6b); // a number, every digit
      return value === null ? 0x3c6ef372 : hashString(stringifyJson(value) ?? '', 0xc2b2ae35);
  }
}

/**
 * The path table of one watch and the fingerprint of a tender against it.
 * Paths get slots in order of first appearance and keep them, so states of
 * different runs compare slot by slot. The top-level `id` is the key, not a field.
 */
export class FieldTable {
  /** Each slot's keys, as the state saves them (a key may hold a dot). */
  readonly fields: string[][] = [];
  /** Each slot's dot path, as changedFields shows it. */
  readonly paths: string[] = [];
  readonly #root: PathNode = { keys: [] };
  /** The last fingerprint: `slots[0..length)`, trailing absent slots trimmed. */
  readonly slots = new Uint32Array(MAX_FIELDS);
  length = 0;

  constructor(fields: readonly (readonly string[])[] = []) {
    for (const keys of fields) this.#slotOf(this.#node(keys));
  }

  /** Fingerprints `tender` into `slots`/`length`; new paths get slots. */
  fingerprint(tender: Record<string, unknown>): void {
    this.slots.fill(ABSENT, 0, this.paths.length);
    this.length = 0;
    // for-in, not Object.keys: no array per object (parsed JSON has no inherited keys).
    for (const key in tender) {
      if (key !== 'id') this.#visit(this.#child(this.#root, key), tender[key]);
    }
  }

  /**
   * The dot paths of the slots where an older fingerprint differs from the
   * last one. A field that turned from null into an object (or back) is named
   * by its leaves: "estimatedValue.amount", not also "estimatedValue".
   */
  differences(old: Uint32Array): string[] {
    if (this.#same(old)) return [];
    const changed: string[] = [];
    const n = Math.max(old.length, this.length);
    for (let i = 0; i < n; i++) {
      if ((i < old.length ? old[i] : ABSENT) !== (i < this.length ? this.slots[i] : ABSENT)) changed.push(this.paths[i]!);
    }
    return changed.length < 2 ? changed : changed.filter((path) => !changed.some((other) => other.startsWith(`${path}.`)));
  }

  #same(old: Uint32Array): boolean {
    if (old.length !== this.length) return false;
    for (let i = 0; i < old.length; i++) if (old[i] !== this.slots[i]) return false;
    return true;
  }

  #visit(node: PathNode, value: unknown): void {
    if (isObject(value)) {
      let empty = true;
      for (const key in value) {
        empty = false;
        this.#visit(this.#child(node, key), value[key]);
      }
      if (!empty) return;
    }
    const slot = node.slot ?? this.#slotOf(node);
    let hash = hashValue(value);
    // The shared slot sums its leaves with their paths: order does not matter.
    if (slot === MAX_FIELDS - 1) hash = (this.slots[slot]! + Math.imul(hashString(node.keys.join('\u0000'), 0x1b873593), hash)) >>> 0 || 1;
    this.slots[slot] = hash;
    if (slot >= this.length) this.length = slot + 1;
  }

  #child(node: PathNode, key: string): PathNode {
    node.children ??= new Map();
    let child = node.children.get(key);
    if (!child) node.children.set(key, (child = { keys: [...node.keys, key] }));
    return child;
  }

  #node(keys: readonly string[]): PathNode {
    let node = this.#root;
    for (const key of keys) node = this.#child(node, key);
    return node;
  }

  /** A slot for a new path: the next free one, or the shared last one. */
  #slotOf(node: PathNode): number {
    if (this.fields.length < MAX_FIELDS - 1) {
      this.fields.push(node.keys);
      this.paths.push(node.keys.join('.'));
    } else if (this.fields.length === MAX_FIELDS - 1) {
      this.fields.push([]);
      this.paths.push(OTHER_FIELDS);
    }
    return (node.slot = this.fields.length - 1);
  }
}
