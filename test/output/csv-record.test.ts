import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { csvField, csvRecord } from '../../src/output/formats/csv-record.js';
import { HOSTILE_TITLES } from '../../src/sandbox/catalogue.js';

// Every character a quoting or formula rule looks at, at the start, inside and at the end.
const SPECIAL = ['"', ',', '\n', '\r', '\r\n', '\t', "'", '=', '+', '-', '@', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20', ';', ' ', '\u001b', '\u202e'];
const FIELDS = [
  '',
  'plain',
  '-12.5',
  '12345678901234567890',
  '{"a":1,"b":"x"}',
  ...HOSTILE_TITLES,
  ...SPECIAL.flatMap((c) => [c, `${c}x`, `x${c}`, `x${c}y`, `${c}${c}`]),
];

describe('CSV records are the bytes csv-stringify wrote', () => {
  for (const excelSafe of [false, true]) {
    it(`every field alone, first, middle and last${excelSafe ? ', --excel-safe' : ''}`, () => {
      const field = csvField(excelSafe);
      for (const text of FIELDS) {
        for (const cells of [[text], [text, 'b'], ['a', text, 'b'], ['a', text]]) {
          expect(csvRecord(cells, field)).toBe(stringify([cells], { escape_formulas: excelSafe }));
        }
      }
    });

    it(`a page of records at once${excelSafe ? ', --excel-safe' : ''}`, () => {
      const field = csvField(excelSafe);
      const records = FIELDS.map((text, i) => [String(i), text, FIELDS[(i * 7) % FIELDS.length]!, '']);
      expect(records.map((cells) => csvRecord(cells, field)).join('')).toBe(stringify(records, { escape_formulas: excelSafe }));
    });
  }
});
