import { holdsRawNumber, isObject, markHolder, stringifyJson, type JsonObject } from './exact-json.js';
import { numberText } from './numbers.js';

/**
 * Dot paths ("buyer.name") into nested result objects: lookup, discovery,
 * projection. Keys are data only: `toString` or `__proto__` is a field like any
 * other, never something an object inherits.
 */

type Shape = Map<string, Shape | null>;

/** Splits each dot path once, so the per-row lookup does no string work. */
export function compilePaths(paths: readonly string[]): string[][] {
  return paths.map((path) => path.split('.'));
}

/** The value at a compiled path, or undefined when any step is missing. */
export function valueAt(item: JsonObject, path: readonly string[]): unknown {
  let value: unknown = item;
  for (const key of path) {
    if (!isObject(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

/**
 * The leaf dot paths of a set of results, in order of first appearance. A field
 * that is null in one result and an object in another yields the object's
 * paths, in the field's place (no lone, always-empty "estimatedValue" column).
 */
export function discoverPaths(items: readonly JsonObject[]): string[] {
  const root: Shape = new Map();
  for (const item of items) merge(root, item);
  const paths: string[] = [];
  const walk = (shape: Shape, prefix: string) => {
    for (const [key, child] of shape) {
      if (child) walk(child, `${prefix}${key}.`);
      else paths.push(prefix + key);
    }
  };
  walk(root, '');
  return paths;
}

function merge(shape: Shape, value: JsonObject): void {
  for (const key of Object.keys(value)) {
    const field = value[key];
    if (isObject(field) && Object.keys(field).length > 0) {
      let child = shape.get(key);
      if (!child) {
        child = new Map();
        shape.set(key, child); // replaces a leaf in place: Map keeps the position
      }
      merge(child, field);
    } else if (!shape.has(key)) {
      shape.set(key, null);
    }
  }
}

/**
 * A copy of `item` holding only the given paths, nested as in the original.
 * Its objects have no prototype, so a `__proto__` path is a plain key.
 */
export function project(item: JsonObject, paths: readonly string[][]): JsonObject {
  const out = dataObject();
  for (const path of paths) {
    const value = valueAt(item, path);
    if (value === undefined) continue;
    const exact = holdsRawNumber(value);
    let target: JsonObject | undefined = out;
    for (let i = 0; target && i < path.length - 1; i++) {
      if (exact) markHolder(target);
      const key = path[i]!;
      const next: unknown = target[key];
      // The service's own object, copied whole for a shorter path, holds the value already.
      target = next === undefined ? (target[key] = dataObject()) : isOurs(next) ? next : undefined;
    }
    if (!target) continue;
    if (exact) markHolder(target);
    target[path[path.length - 1]!] = value;
  }
  return out;
}

function dataObject(): JsonObject {
  return Object.create(null) as JsonObject;
}

function isOurs(value: unknown): value is JsonObject {
  return isObject(value) && Object.getPrototypeOf(value) === null;
}

/** A cell's text: nested values as JSON, numbers with the service's digits, null and missing as empty. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return stringifyJson(value);
  if (typeof value === 'number') return numberText(value); // one a cell: see numberText
  return String(value);
}
