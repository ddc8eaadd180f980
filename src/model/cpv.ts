/**
 * CPV codes (Common Procurement Vocabulary, Regulation (EC) No 213/2008):
 * eight digits and an optional check digit (`45233140-2`). The hierarchy is in
 * the digits: trailing zeros are the level, so `45000000` is division 45 and
 * every `45xxxxxx` falls under it. The one place that reads codes out of a
 * tender and turns a typed code into the prefix a filter matches.
 */

import { isObject } from './exact-json.js';

const CODE = /^(\d{2,8})(?:-\d)?$/;

/** Where a tender's codes are unless the cpv-paths setting names other paths: the `cpvCodes` array, then the single `cpv` string. */
export const DEFAULT_CPV_PATHS = ['cpvCodes', 'cpv'] as const;

/** The 45 divisions of CPV 2008 (the first two digits of every code): what completion offers after --cpv. */
export const CPV_DIVISIONS = [
  '03', '09', '14', '15', '16', '18', '19', '22', '24', '30', '31', '32', '33', '34', '35', '37', '38', '39', '41', '42', '43', '44', '45',
  '48', '50', '51', '55', '60', '63', '64', '65', '66', '70', '71', '72', '73', '75', '76', '77', '79', '80', '85', '90', '92', '98',
] as const;

/** A code as stored and compared: eight digits, no check digit; undefined for anything that is not a CPV code. */
export function normalizeCpvCode(raw: string): string | undefined {
  const match = CODE.exec(raw.trim());
  if (!match || match[1]!.length !== 8) return undefined;
  return match[1];
}

/**
 * The prefix a typed code selects: `45`, `45000000` and `45000000-7` → `45`;
 * `4523`, `45230000` → `4523`; `45233140` → `4523314` (itself and the codes
 * below it). Undefined for what is not 2 to 8 digits with an optional check digit.
 */
export function cpvPrefix(raw: string): string | undefined {
  const match = CODE.exec(raw.trim());
  if (!match) return undefined;
  const digits = match[1]!.replace(/0+$/, '');
  return digits.length >= 2 ? digits : match[1]!.slice(0, 2);
}

/** A code cut to a level of the hierarchy (2 division, 3 group, 4 class, 5 category, 8 the code itself), zero-filled: `45233140`, 3 → `45200000`. */
export function cpvAtLevel(code: string, level: number): string {
  return code.slice(0, level).padEnd(8, '0');
}

/** What a list of CPV paths must be, said when it is not (the cpv-paths setting, --cpv-paths, TENDERS_CPV_PATHS). */
export const CPV_PATHS_RULE = 'comma-separated dot paths such as cpvCodes,cpv or lots.cpv,mainCpv (no empty path, no empty part)';

/**
 * The paths of a list as `--cpv-paths` and the copy's meta take it (`lots.cpv, mainCpv`),
 * each once, in order; undefined for a list with an empty path or part (`a,,b`, `a..b`).
 */
export function parseCpvPaths(text: string): string[] | undefined {
  const paths = text.split(',').map((path) => path.trim());
  if (paths.some((path) => path === '' || path.split('.').some((part) => part === ''))) return undefined;
  return [...new Set(paths)];
}

/** Whether two lists of paths read the same codes in the same order. */
export function sameCpvPaths(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((path, i) => path === b[i]);
}

/**
 * The tender's CPV codes, normalised, in document order, each once: from each
 * path's value, a string or an array of strings. A path is a dot path into
 * objects; an array on its way is entered item by item (`lots.cpv`: the `cpv`
 * of every lot). Values that are not codes are passed over.
 */
export function tenderCpvCodes(tender: Record<string, unknown>, paths: readonly string[]): string[] {
  const codes = new Set<string>();
  const add = (value: unknown, keys: readonly string[], at: number): void => {
    if (Array.isArray(value)) {
      for (const item of value) add(item, keys, at);
    } else if (at < keys.length) {
      if (isObject(value) && Object.hasOwn(value, keys[at]!)) add(value[keys[at]!], keys, at + 1);
    } else if (typeof value === 'string') {
      const code = normalizeCpvCode(value);
      if (code) codes.add(code);
    }
  };
  for (const path of paths) add(tender, path.split('.'), 0);
  return [...codes];
}
