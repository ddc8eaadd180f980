import { isObject, type JsonObject } from '../../model/exact-json.js';

const COVERED = Symbol('covered');
type Coverage = Map<string, Coverage | typeof COVERED>;

/** Enough names to act on; a service inventing keys per row must not grow memory with the export. */
const MAX_NAMES = 1000;
/** Names a warning lists before "and N more". */
const SHOWN = 10;

/** Key lists a place in the data remembers; a service inventing keys per row must not grow memory either. */
const MAX_SHAPES = 32;

/**
 * The fields a flat format (CSV, TSV, Parquet) leaves out of its columns
 * because they first appear after the page its columns came from. A column
 * covers its path and all beneath it (a `buyer` column holds the whole
 * object as JSON); a null or empty value loses nothing.
 * Rows of one service share a few shapes (lists of keys), so what the columns
 * leave open is decided once a shape, not once a key of every row: a row whose
 * shape is covered costs one Object.keys and a comparison per nested object.
 */
export class NewFields {
  readonly #root: Place;
  readonly #found: Set<string>;

  /** `found`: what an interrupted run of the same export had already found (resume). */
  constructor(columns: readonly string[], found: readonly string[] = []) {
    const coverage: Coverage = new Map();
    for (const column of columns) cover(coverage, column.split('.'));
    this.#root = new Place(coverage, '');
    this.#found = new Set(found);
  }

  /** Notes the fields of `items` that no column covers. */
  scan(items: readonly JsonObject[]): void {
    for (const item of items) this.#visit(item, this.#root);
  }

  /** The uncovered fields seen so far, as dot paths in order of discovery (at most MAX_NAMES). */
  get fields(): string[] {
    return [...this.#found];
  }

  #visit(object: JsonObject, place: Place): void {
    for (const key of place.open(Object.keys(object))) {
      const value = object[key];
      if (isObject(value)) this.#visit(value, place.child(key)); // an empty object adds nothing
      else if (carriesData(value) && this.#found.size < MAX_NAMES) this.#found.add(place.prefix + key);
    }
  }
}

function cover(coverage: Coverage, keys: readonly string[]): void {
  let node = coverage;
  for (const key of keys.slice(0, -1)) {
    let next = node.get(key);
    if (next === COVERED) return; // a shorter column holds it already
    if (!next) node.set(key, (next = new Map()));
    node = next;
  }
  node.set(keys[keys.length - 1]!, COVERED);
}

/** A place in the data (the row, `buyer`, ...): its coverage, and the shapes met there with their open keys. */
class Place {
  readonly #shapes: { keys: readonly string[]; open: readonly string[] }[] = [];
  readonly #children = new Map<string, Place>();

  /** `coverage` undefined: no column reaches here, every key is open. */
  constructor(
    private readonly coverage: Coverage | undefined,
    readonly prefix: string,
  ) {}

  /** The keys among `keys` that no column covers, in their order. */
  open(keys: readonly string[]): readonly string[] {
    if (!this.coverage) return keys;
    for (const shape of this.#shapes) if (sameKeys(shape.keys, keys)) return shape.open;
    const coverage = this.coverage;
    const open = keys.filter((key) => coverage.get(key) !== COVERED);
    if (this.#shapes.length < MAX_SHAPES) this.#shapes.push({ keys, open });
    return open;
  }

  /** The place beneath `key` (an open key: covered deeper down, or not at all). */
  child(key: string): Place {
    let child = this.#children.get(key);
    if (child) return child;
    const coverage = this.coverage?.get(key) as Coverage | undefined; // an open key is never COVERED
    child = new Place(coverage, `${this.prefix}${key}.`);
    // Only places a column reaches are kept: beneath uncovered keys there is nothing to remember.
    if (coverage) this.#children.set(key, child);
    return child;
  }
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function carriesData(value: unknown): boolean {
  if (value === null || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  return !isObject(value); // an empty object
}

/**
 * The one warning of a run that left fields out, saying how to include them.
 * `output` names the file as the user knows it (CSV, TSV, Parquet file);
 * `wholeIn` is the column that still holds each row whole (Parquet's doc),
 * which --columns does not write.
 */
export function newFieldsWarning(fields: readonly string[], columns: readonly string[], output: string, wholeIn?: string): string {
  const named = fields.slice(0, SHOWN).join(', ') + (fields.length > SHOWN ? ` and ${fields.length - SHOWN} more` : '');
  const fix =
    fields.length > SHOWN
      ? 'name the columns you want with --columns'
      : `add them to the columns: --columns ${[...columns, ...fields].join(',')}`;
  const one = fields.length === 1;
  const where = wholeIn
    ? `${one ? 'is not a column' : 'are not columns'} of the ${output} (its columns come from the first page; its ${wholeIn} column holds them)`
    : `${one ? 'is' : 'are'} not in the ${output} (its columns come from the first page)`;
  const include = wholeIn ? `to make them columns (--columns writes no ${wholeIn} column), ${fix}` : `to include them, ${fix}`;
  return `${fields.length} field${one ? '' : 's'} first seen after the first page ${where}: ${named}; ${include}`;
}
