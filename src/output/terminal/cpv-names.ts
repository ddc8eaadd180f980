import type { CpvVocabulary } from '../../model/cpv-vocabulary.js';
import { isObject } from '../../model/exact-json.js';
import { compilePaths, valueAt } from '../../model/paths.js';
import type { Formatter } from '../formatter.js';

/**
 * A table's formatter whose CPV fields (`cpvPaths` that are among its
 * columns: `cpv`, `cpvCodes` by default) show each code with its name
 * (`45233140 Roadworks; 45233120 Road construction works`): each page's
 * tenders are given to it with those fields as that text, in a copy; a
 * value that holds no code stays as it is.
 */
export function withCpvNames(formatter: Formatter, vocabulary: CpvVocabulary, cpvPaths: readonly string[]): Formatter {
  const paths = compilePaths(cpvPaths);
  const named = (item: Record<string, unknown>) => {
    let copy: Record<string, unknown> | undefined;
    for (const path of paths) {
      const cell = vocabulary.cell(valueAt(item, path));
      if (cell !== undefined) copy = withValue(copy ?? item, path, cell);
    }
    return copy ?? item;
  };
  return new Proxy(formatter, {
    get(target, key) {
      if (key === 'page') return (items: readonly Record<string, unknown>[]) => target.page(items.map(named));
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A copy of `item` with `value` at `path` (which holds a value): the objects on the way copied, the service's left as they are. */
function withValue(item: Record<string, unknown>, path: readonly string[], value: unknown): Record<string, unknown> {
  const [key, ...rest] = path;
  const inner = item[key!];
  return { ...item, [key!]: rest.length === 0 || !isObject(inner) ? value : withValue(inner, rest, value) };
}
