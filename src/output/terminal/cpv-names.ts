import { DEFAULT_CPV_PATHS } from '../../model/cpv.js';
import type { CpvVocabulary } from '../../model/cpv-vocabulary.js';
import type { Formatter } from '../formatter.js';

/**
 * A table's formatter whose CPV fields (`cpv`, `cpvCodes`) show each code with
 * its name (`45233140 Roadworks; 45233120 Road construction works`): each
 * page's tenders are given to it with those fields as that text, in a copy;
 * a value that holds no code stays as it is.
 */
export function withCpvNames(formatter: Formatter, vocabulary: CpvVocabulary): Formatter {
  const named = (item: Record<string, unknown>) => {
    let copy: Record<string, unknown> | undefined;
    for (const path of DEFAULT_CPV_PATHS) {
      const cell = Object.hasOwn(item, path) ? vocabulary.cell(item[path]) : undefined;
      if (cell !== undefined) (copy ??= { ...item })[path] = cell;
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
