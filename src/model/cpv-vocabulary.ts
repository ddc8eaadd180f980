import { cpvPrefix, normalizeCpvCode } from './cpv.js';

/** One entry of the vocabulary: the code (eight digits, no check digit) and its English name. */
export interface CpvEntry {
  code: string;
  name: string;
}

/**
 * The CPV 2008 vocabulary (data/cpv-2008.tsv, one `code<TAB>name` a line,
 * in code order): the names shown beside codes, and the search of
 * `tenders cpv WORDS`. Made from the file's text by files/cpv-file.ts.
 */
export class CpvVocabulary {
  readonly entries: readonly CpvEntry[];
  readonly #names: Map<string, string>;

  constructor(text: string) {
    this.entries = text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const tab = line.indexOf('\t');
        return { code: line.slice(0, tab), name: line.slice(tab + 1) };
      });
    this.#names = new Map(this.entries.map((entry) => [entry.code, entry.name]));
  }

  /** The name of an eight-digit code; undefined for a code the vocabulary does not have. */
  name(code: string): string | undefined {
    return this.#names.get(code);
  }

  /** `45233140 Roadworks`; the code alone when the vocabulary does not have it. */
  label(code: string): string {
    const name = this.#names.get(code);
    return name === undefined ? code : `${code} ${name}`;
  }

  /**
   * A table cell of a CPV field with the names: a code as written and its
   * name (`45233140-2 Roadworks`), a list of them joined with `; `;
   * undefined for a value that holds no code.
   */
  cell(value: unknown): string | undefined {
    const label = (item: unknown) => {
      const code = typeof item === 'string' ? normalizeCpvCode(item) : undefined;
      const name = code === undefined ? undefined : this.#names.get(code);
      return name === undefined ? undefined : `${(item as string).trim()} ${name}`;
    };
    if (typeof value === 'string') return label(value);
    if (!Array.isArray(value) || !value.some((item) => label(item) !== undefined)) return undefined;
    return value.map((item) => label(item) ?? (typeof item === 'string' ? item : JSON.stringify(item))).join('; ');
  }

  /**
   * The entries every term matches: a code (2 to 8 digits, a check digit
   * allowed) matches itself and the codes below it (`4523` is that branch);
   * any other term matches a name that holds it, in any case. Names where
   * each word term begins a word come first (`road`: Roadworks before Broad
   * beans), each part in code order.
   */
  find(terms: readonly string[]): CpvEntry[] {
    const words: string[] = [];
    const tests = terms.map((term) => {
      const prefix = /^\d/.test(term) ? cpvPrefix(term) : undefined;
      if (prefix !== undefined) return (entry: CpvEntry) => entry.code.startsWith(prefix);
      const lower = term.toLowerCase();
      words.push(lower);
      return (entry: CpvEntry) => entry.name.toLowerCase().includes(lower);
    });
    const found = this.entries.filter((entry) => tests.every((test) => test(entry)));
    const atWordStart = (entry: CpvEntry) => {
      const starts = entry.name.toLowerCase().split(/[^\p{L}\p{N}]+/u);
      return words.every((word) => starts.some((start) => start.startsWith(word)));
    };
    return [...found.filter(atWordStart), ...found.filter((entry) => !atWordStart(entry))];
  }
}
