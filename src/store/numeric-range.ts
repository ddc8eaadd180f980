/**
 * What PostgreSQL's `numeric`, and with it `jsonb`, can hold of a JSON number:
 * at most 131 072 digits before the point, and 16 383 after it as written
 * (trailing zeros count), an exponent of less than 2^30 - 1. Only a RawNumber
 * can be beyond: every double is within, and a literal a double holds exactly
 * (`0e-20000`, `1.000…0`) is written as that double.
 */

import { holdsRawNumber, RawNumber } from '../model/exact-json.js';

/** numeric's limits (PostgreSQL's numeric.c): NUMERIC_DSCALE_MAX, the last power of ten NUMERIC_WEIGHT_MAX reaches, INT_MAX / 2. */
const MAX_SCALE = 16_383;
const MAX_POWER = 131_071;
const MAX_EXPONENT = 1_073_741_823;
const SHOWN = 24;

/**
 * The first number literal in `value` (parsed JSON) that numeric cannot hold, if any, as a message
 * shows it (cut at SHOWN characters). A value the CLI built itself (a sync's query), whose
 * containers parseJson did not mark, is looked into `everywhere`: it is small.
 */
export function beyondNumeric(value: unknown, everywhere = false): string | undefined {
  if (value instanceof RawNumber) return fitsNumeric(value.text) ? undefined : shown(value.text);
  if (typeof value !== 'object' || value === null || !(everywhere || holdsRawNumber(value))) return undefined;
  for (const inner of Object.values(value)) {
    const found = beyondNumeric(inner, everywhere);
    if (found !== undefined) return found;
  }
  return undefined;
}

const shown = (literal: string) => (literal.length > SHOWN ? `${literal.slice(0, SHOWN)}…` : literal);

/** Whether numeric holds a JSON number literal as written. */
export function fitsNumeric(literal: string): boolean {
  const parts = /^-?(\d+)(?:\.(\d+))?(?:[eE]([-+]?\d+))?$/.exec(literal);
  if (!parts) return true;
  const [, whole = '', fraction = '', exponentText = '0'] = parts;
  const exponent = Number(exponentText);
  if (Math.abs(exponent) >= MAX_EXPONENT || fraction.length - exponent > MAX_SCALE) return false;
  const significant = whole.replace(/^0+/, '');
  const firstDigit = fraction.search(/[1-9]/);
  if (significant === '' && firstDigit < 0) return true; // zero
  // The power of ten of the first digit that is not zero.
  const power = (significant === '' ? -(firstDigit + 1) : significant.length - 1) + exponent;
  return power <= MAX_POWER;
}
