import { isObject, type JsonObject } from '../model/exact-json.js';

const COVERED = Symbol('covered');
type Coverage = Map<string, Coverage | typeof COVERED>;

/** Enough names to act on; a service inventing keys per row must not grow memory with the export. */
const MAX_NAMES = 1000;
/** Names a warning lists before "and N more". */
const SHOWN = 10;

/**
 * The fields a CSV leaves out because they first appear after the page its
 * columns came from. A column covers its path and all beneath it (a `buyer`
 * column holds the whole object as JSON); a null or empty value loses nothing.
 */
export class NewFields {
  readonly #coverage: Coverage = new Map();
  readonly #found: Set<string>;

  /** `found`: what an interrupted run of the same export had already found (resume). */
  constructor(columns: readonly string[], found: readonly string[] = []) {
    for (const column of columns) this.#cover(column.split('.'));
    this.#found = new Set(found);
  }

  /** Notes the fields of `items` that no column covers. */
  scan(items: readonly JsonObject[]): void {
    for (const item of items) this.#visit(item, this.#coverage, '');
  }

  /** The uncovered fields seen so far, as dot paths in order of discovery (at most MAX_NAMES). */
  get fields(): string[] {
    return [...this.#found];
  }

  #cover(keys: readonly string[]): void {
    let node = this.#coverage;
    for (const key of keys.slice(0, -1)) {
      let next = node.get(key);
      if (next === COVERED) return; // a shorter column holds it already
      if (!next) node.set(key, (next = new Map()));
      node = next;
    }
    node.set(keys[keys.length - 1]!, COVERED);
  }

  #visit(object: JsonObject, coverage: Coverage | undefined, prefix: string): void {
    for (const key of Object.keys(object)) {
      const child = coverage?.get(key);
      if (child === COVERED) continue;
      const value = object[key];
      if (isObject(value) && Object.keys(value).length > 0) this.#visit(value, child, `${prefix}${key}.`);
      else if (carriesData(value) && this.#found.size < MAX_NAMES) this.#found.add(prefix + key);
    }
  }
}

function carriesData(value: unknown): boolean {
  if (value === null || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  return !isObject(value); // an empty object
}

/** The one warning of a run that left fields out, saying how to include them. */
export function newFieldsWarning(fields: readonly string[], columns: readonly string[]): string {
  const named = fields.slice(0, SHOWN).join(', ') + (fields.length > SHOWN ? ` and ${fields.length - SHOWN} more` : '');
  const fix =
    fields.length > SHOWN
      ? 'name the columns you want with --columns'
      : `add them to the columns: --columns ${[...columns, ...fields].join(',')}`;
  const s = fields.length === 1 ? '' : 's';
  return `${fields.length} field${s} first seen after the first page ${fields.length === 1 ? 'is' : 'are'} not in the CSV (its columns come from the first page): ${named}; to include them, ${fix}`;
}
