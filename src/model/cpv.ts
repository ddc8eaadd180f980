/**
 * CPV codes (Common Procurement Vocabulary, Regulation (EC) No 213/2008):
 * eight digits and an optional check digit (`45233140-2`). The hierarchy is in
 * the digits: trailing zeros are the level, so `45000000` is division 45 and
 * every `45xxxxxx` falls under it. The one place that reads codes out of a
 * tender and turns a typed code into the prefix a filter matches.
 */

import { isObject } from './exact-json.js';

const CODE = /^(\d{2,8})(?:-\d)?$/;

/** Where a tender's codes are unless a setting names another path: the `cpvCodes` array, then the single `cpv` string. */
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

/**
 * The tender's CPV codes, normalised, in document order, each once: from each
 * path's value, a string or an array of strings (a dot path into objects).
 * Values that are not codes are passed over.
 */
export function tenderCpvCodes(tender: Record<string, unknown>, paths: readonly string[] = DEFAULT_CPV_PATHS): string[] {
  const codes = new Set<string>();
  for (const path of paths) {
    let value: unknown = tender;
    for (const key of path.split('.')) value = isObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
    for (const item of Array.isArray(value) ? value : [value]) {
      const code = typeof item === 'string' ? normalizeCpvCode(item) : undefined;
      if (code) codes.add(code);
    }
  }
  return [...codes];
}
