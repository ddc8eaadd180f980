/**
 * RFC 4180 records, written as csv-stringify 6 writes them with the options the
 * CSV export used (delimiter `,`, records ending in `\n`, `escape_formulas` for
 * --excel-safe), without its per-field option objects and tuples: a field is
 * quoted only when it holds `"`, `,`, LF or CR, an empty field stays empty.
 * test/output/csv-record.test.ts holds the two to the same bytes.
 */

const NEEDS_QUOTES = /[",\n\r]/;
const QUOTES = /"/g;
/** What a spreadsheet starts a formula with (the fullwidth forms too: Apple Numbers normalises them). */
const FORMULA_START = new Set(['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20']);

export type CsvField = (text: string) => string;

/** A field as the record holds it; decided once a run, since --excel-safe holds for every field. */
export function csvField(excelSafe: boolean): CsvField {
  return excelSafe ? guardedField : plainField;
}

/** One record, its line end included. */
export function csvRecord(cells: readonly string[], field: CsvField): string {
  let line = cells.length > 0 ? field(cells[0]!) : '';
  for (let i = 1; i < cells.length; i++) line += ',' + field(cells[i]!);
  return line + '\n';
}

function plainField(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replace(QUOTES, '""')}"` : text;
}

/** A leading `'` keeps a spreadsheet from running the cell as a formula (OWASP's CSV injection advice). */
function guardedField(text: string): string {
  return plainField(text !== '' && FORMULA_START.has(text[0]!) ? `'${text}` : text);
}
