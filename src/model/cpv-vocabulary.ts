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
  readonly #text: string;
  #entries: readonly CpvEntry[] | undefined;

  constructor(text: string) {
    this.#text = text;
  }

  /** Every entry, in code order: parsed on first use (a name alone is found in the text, see `name`). */
  get entries(): readonly CpvEntry[] {
    this.#entries ??= this.#text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const tab = line.indexOf('\t');
        return { code: line.slice(0, tab), name: line.slice(tab + 1) };
      });
    return this.#entries;
  }

  /**
   * The name of an eight-digit code; undefined for a code the vocabulary does not have. Found
   * in the text by searchName: naming a tender's few codes parses none of the other lines.
   */
  name(code: string): string | undefined {
    const text = this.#text;
    return searchName(code, text.length, (at) => {
      const start = text.lastIndexOf('\n', at - 1) + 1;
      const newline = text.indexOf('\n', start);
      const end = newline === -1 ? text.length : newline;
      return { start, end, code: text.slice(start, start + 8), name: () => text.slice(start + 9, end) };
    });
  }

  /** `45233140 Roadworks`; the code alone when the vocabulary does not have it. */
  label(code: string): string {
    const name = this.name(code);
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
      const name = code === undefined ? undefined : this.name(code);
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

/** The line of a vocabulary that holds an offset: where it starts, where its newline (or the end) is, its code, and its name when asked. */
export interface VocabularyLine {
  start: number;
  end: number;
  code: string;
  name(): string;
}

/**
 * The name of eight-digit `code` in a vocabulary of `size` units (characters of its text,
 * bytes of its file; one `code<TAB>name` a line, in code order) whose lines `lineAt` reads:
 * a binary search by offset, which reads one line a step (14 steps of 9 454 lines).
 */
export function searchName(code: string, size: number, lineAt: (at: number) => VocabularyLine): string | undefined {
  if (!/^\d{8}$/.test(code)) return undefined;
  // Lines start in [lo, hi); lo is always the start of a line, so the line holding mid starts there or after.
  let lo = 0;
  let hi = size;
  while (lo < hi) {
    const line = lineAt((lo + hi) >>> 1);
    if (line.code === code) return line.name();
    if (line.code > code) hi = line.start;
    else lo = line.end + 1;
  }
  return undefined;
}
