import { RawNumber, markHolder, holdsRawNumber, type JsonObject } from './exact-json.js';

/**
 * A number literal that may not survive a double: more than 15 digits, or an
 * exponent (1e400). Every JSON number starts the text or follows `:`, `,` or
 * `[`, so this finds them all; a string that looks alike only costs the slow
 * road, never a digit.
 */
const RISKY_NUMBER = /(?:^|[:,[])[ \t\n\r]*-?\d(?:(?:\.?\d){15}|[\d.]*[eE])/;

/**
 * JSON.parse, except that numbers a double would change (12345678901234567890,
 * 9007199254740993) come back as RawNumbers holding the literal. Pages without
 * such numbers, nearly all of them, take JSON.parse itself. Node 20's
 * JSON.parse cannot show a reviver the source text, hence the parser below.
 */
export function parseJson(text: string): unknown {
  return RISKY_NUMBER.test(text) ? new LosslessParser(text).parse() : JSON.parse(text);
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Builds what JSON.parse builds (key order, an own `__proto__`), RawNumbers aside; throws SyntaxError alike. */
class LosslessParser {
  #pos = 0;

  constructor(private readonly text: string) {}

  parse(): unknown {
    const value = this.#value();
    this.#space();
    if (this.#pos < this.text.length) throw this.#unexpected();
    return value;
  }

  #value(): unknown {
    this.#space();
    switch (this.text.charCodeAt(this.#pos)) {
      case 0x7b: // {
        return this.#object();
      case 0x5b: // [
        return this.#array();
      case 0x22: // "
        return this.#string();
      case 0x74:
        return this.#word('true', true);
      case 0x66:
        return this.#word('false', false);
      case 0x6e:
        return this.#word('null', null);
      default:
        return this.#number();
    }
  }

  #object(): JsonObject {
    const object: JsonObject = {};
    let holds = false;
    if (this.#empty(0x7d)) return object;
    for (;;) {
      this.#space();
      if (this.text.charCodeAt(this.#pos) !== 0x22) throw this.#unexpected();
      const key = this.#string();
      this.#space();
      if (this.text.charCodeAt(this.#pos++) !== 0x3a) throw this.#unexpected(this.#pos - 1);
      const value = this.#value();
      // Assigning `__proto__` would set the prototype; JSON.parse makes it an own property.
      if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
      else object[key] = value;
      holds ||= holdsRawNumber(value);
      if (this.#endOf(0x7d)) break;
    }
    if (holds) markHolder(object);
    return object;
  }

  #array(): unknown[] {
    const array: unknown[] = [];
    let holds = false;
    if (this.#empty(0x5d)) return array;
    for (;;) {
      const value = this.#value();
      array.push(value);
      holds ||= holdsRawNumber(value);
      if (this.#endOf(0x5d)) break;
    }
    if (holds) markHolder(array);
    return array;
  }

  /** Steps past an opening bracket; true (and past the closing one) when nothing is inside. */
  #empty(close: number): boolean {
    this.#pos++;
    this.#space();
    if (this.text.charCodeAt(this.#pos) !== close) return false;
    this.#pos++;
    return true;
  }

  /** After a member: true at the closing bracket, false at a comma. */
  #endOf(close: number): boolean {
    this.#space();
    const c = this.text.charCodeAt(this.#pos++);
    if (c === close) return true;
    if (c !== 0x2c) throw this.#unexpected(this.#pos - 1);
    return false;
  }

  #string(): string {
    const start = this.#pos;
    let end = start + 1;
    let escaped = false;
    for (;;) {
      if (end >= this.text.length) throw this.#unexpected(end);
      const c = this.text.charCodeAt(end);
      if (c === 0x22) break;
      if (c < 0x20) throw this.#unexpected(end);
      if (c === 0x5c) {
        escaped = true;
        end += 2;
      } else end++;
    }
    this.#pos = end + 1;
    // Escapes are JSON.parse's to decode (and to reject when malformed).
    return escaped ? (JSON.parse(this.text.slice(start, end + 1)) as string) : this.text.slice(start + 1, end);
  }

  #word<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.#pos)) throw this.#unexpected();
    this.#pos += word.length;
    return value;
  }

  #number(): number | RawNumber {
    NUMBER.lastIndex = this.#pos;
    const literal = NUMBER.exec(this.text)?.[0];
    if (literal === undefined) throw this.#unexpected();
    this.#pos += literal.length;
    const value = Number(literal);
    // Up to 15 digits and no exponent always survive a double.
    const short = literal.length <= 15 && !literal.includes('e') && !literal.includes('E');
    return short || sameValue(literal, value) ? value : new RawNumber(literal);
  }

  #space(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.#pos);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.#pos++;
    }
  }

  #unexpected(at = this.#pos): SyntaxError {
    const what = at < this.text.length ? `token ${JSON.stringify(this.text[at])}` : 'end';
    return new SyntaxError(`Unexpected ${what} in JSON at position ${at}`);
  }
}

/** Whether the double `value` is exactly the decimal `literal`, so writing it back loses nothing. */
function sameValue(literal: string, value: number): boolean {
  return Number.isFinite(value) && decimal(literal) === decimal(String(value));
}

/** A number's decimal value in one spelling: "-1.50e3" and "-1500" both give "-15e2"; zero is "0". */
function decimal(text: string): string {
  const [, sign, whole, fraction = '', exponent = '0'] = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text)!;
  const digits = (whole! + fraction).replace(/^0+/, '');
  const significant = digits.replace(/0+$/, '');
  if (significant === '') return '0';
  return `${sign}${significant}e${Number(exponent) - fraction.length + digits.length - significant.length}`;
}
