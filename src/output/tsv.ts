import { CsvFormatter } from './csv.js';
import type { FormatDeclaration } from './format-declaration.js';

export const tsvFormat: FormatDeclaration = {
  name: 'tsv',
  extensions: ['.tsv'],
  description: 'tab-separated lines for cut, awk and sort: no quoting, tab, newline, CR and backslash escaped as \\t \\n \\r \\\\',
  traits: { shape: 'flat', columnsFromFirstPage: true, streaming: true, binary: false, resumable: true, terminalSafe: true },
};

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
  protected override encode(records: string[][]): string {
    let out = '';
    for (const record of records) out += record.map((cell) => this.#cell(cell)).join('\t') + '\n';
    return out;
  }

  #cell(text: string): string {
    const guarded = this.excelSafe && FORMULA.test(text) ? `'${text}` : text;
    return guarded.replace(SPECIAL, (c) => ESCAPES[c]!);
  }
}
