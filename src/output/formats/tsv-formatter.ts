import { CsvFormatter } from './csv-formatter.js';

const SPECIAL = /[\t\n\r\\]/g;
const ESCAPES: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r', '\\': '\\\\' };
/** What a spreadsheet would run as a formula (--excel-safe), as csv-stringify guards it. */
const FORMULA = /^[=+\-@\t\r]/;

/**
 * Tab-separated values as gh and the aws CLI print them for scripts: the
 * CSV's columns (dot paths, --columns, header style, fixed by the first page)
 * with one line a row and no quoting. A tab, newline, CR or backslash in a
 * value is written as \t, \n, \r or \\, so every line splits on tabs into
 * exactly the header's fields and the text can be restored.
 */
export class TsvFormatter extends CsvFormatter {
  protected override readonly name = 'TSV';

  protected override record(cells: readonly string[]): string {
    return cells.map((cell) => this.#cell(cell)).join('\t') + '\n';
  }

  #cell(text: string): string {
    const guarded = this.excelSafe && FORMULA.test(text) ? `'${text}` : text;
    return guarded.replace(SPECIAL, (c) => ESCAPES[c]!);
  }
}
