/** Dot paths ("buyer.name") into nested result objects: lookup, discovery, projection. */

type Shape = Map<string, Shape | null>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Splits each dot path once, so the per-row lookup does no string work. */
export function compilePaths(paths: readonly string[]): string[][] {
  return paths.map((path) => path.split('.'));
}

/** The value at a compiled path, or undefined when any step is missing. */
export function valueAt(item: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = item;
  for (const key of path) {
    if (!isPlainObject(value)) return undefined;
    value = value[key];
  }
  return value;
}

/**
 * The leaf dot paths of a set of results, in order of first appearance. A field
 * that is null in one result and an object in another yields the object's
 * paths, in the field's place (no lone, always-empty "estimatedValue" column).
 */
export function discoverPaths(items: readonly Record<string, unknown>[]): string[] {
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

function merge(shape: Shape, value: Record<string, unknown>): void {
  for (const key of Object.keys(value)) {
    const field = value[key];
    if (isPlainObject(field) && Object.keys(field).length > 0) {
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

/** A copy of `item` holding only the given paths, nested as in the original. */
export function project(item: Record<string, unknown>, paths: readonly string[][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path of paths) {
    const value = valueAt(item, path);
    if (value === undefined) continue;
    let target = out;
    for (let i = 0; i < path.length - 1; i++) {
      const key = path[i]!;
      if (!isPlainObject(target[key])) target[key] = {};
      target = target[key] as Record<string, unknown>;
    }
    target[path[path.length - 1]!] = value;
  }
  return out;
}

/** A cell's text: nested values as JSON, null and missing as empty. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
