import { isObject, stringifyExact } from './exact-json.js';

/** JSON text with object keys sorted at every depth: equal for values that ask the same, whatever their key order (exact digits kept). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
      .join(',')}}`;
  }
  return stringifyExact(value) ?? 'null';
}
