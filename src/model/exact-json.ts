/**
 * The service's JSON values as the CLI holds them: plain JSON.parse values,
 * except number literals a double cannot hold, which stay RawNumbers so every
 * format can write their exact digits. Shared by api (parsing) and output.
 */

export type JsonObject = Record<string, unknown>;

/** A number literal kept as the service wrote it (12345678901234567890, 0.1000000000000000055). */
export class RawNumber {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }

  /** What a plain JSON.stringify writes: the nearest double, as JSON.parse would have given. */
  toJSON(): number {
    return Number(this.text);
  }
}

/** What JSON.parse would have given: a RawNumber's nearest double, anything else as it is. */
export function plainValue(value: unknown): unknown {
  return value instanceof RawNumber ? value.toJSON() : value;
}

/** A JSON object: not null, not an array, not a RawNumber. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof RawNumber);
}

// Objects and arrays with a RawNumber somewhere inside. Only they take the slow
// road in stringifyJson; everything else goes straight to JSON.stringify.
const holders = new WeakSet<object>();

/** Records that `container` holds a RawNumber (directly or deeper down). */
export function markHolder(container: object): void {
  holders.add(container);
}

/** A RawNumber, or an object or array holding one. */
export function holdsRawNumber(value: unknown): boolean {
  return value instanceof RawNumber || (typeof value === 'object' && value !== null && holders.has(value));
}

/** JSON text of a parsed value, RawNumbers written verbatim; JSON.stringify's text otherwise. */
export function stringifyJson(value: unknown): string {
  return write(value, (v) => !holdsRawNumber(v), '', '') as string;
}

/**
 * JSON text of a value the CLI built itself (a request body, a saved query),
 * whose containers are not marked: looks everywhere for RawNumbers, so it is
 * for small values. `gap` pretty-prints as JSON.stringify(value, null, gap).
 */
export function stringifyExact(value: unknown, gap = ''): string {
  return write(value, (v) => typeof v !== 'object' || v === null, gap, '') as string;
}

/** JSON.stringify, except RawNumbers; `plain` says which values JSON.stringify may write whole. */
function write(value: unknown, plain: (value: unknown) => boolean, gap: string, indent: string): string | undefined {
  if (value instanceof RawNumber) return value.text;
  if (plain(value)) {
    const text = JSON.stringify(value, null, gap) as string | undefined;
    // JSON text has no raw newline but between its lines: indenting them is safe.
    return gap && text ? text.replaceAll('\n', `\n${indent}`) : text;
  }
  const inner = indent + gap;
  const [open, close, colon] = gap ? [`\n${inner}`, `\n${indent}`, ': '] : ['', '', ':'];
  if (Array.isArray(value)) {
    const items = value.map((v: unknown) => write(v, plain, gap, inner) ?? 'null');
    return items.length ? `[${open}${items.join(`,${open}`)}${close}]` : '[]';
  }
  const object = value as JsonObject;
  const members: string[] = [];
  for (const key of Object.keys(object)) {
    const text = write(object[key], plain, gap, inner);
    if (text !== undefined) members.push(`${JSON.stringify(key)}${colon}${text}`);
  }
  return members.length ? `{${open}${members.join(`,${open}`)}${close}}` : '{}';
}
