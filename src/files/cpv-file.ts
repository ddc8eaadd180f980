import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { CpvVocabulary, searchName, type VocabularyLine } from '../model/cpv-vocabulary.js';

/**
 * Where the CPV vocabulary is: beside the bundle (scripts/build.js copies
 * data/cpv-2008.tsv into dist/ and names it here), or, where src/ runs as it
 * is (vitest), the repository's data/cpv-2008.tsv as an absolute path.
 */
declare const __TENDERS_CPV_FILE__: string;

const vocabularyFile = () => (isAbsolute(__TENDERS_CPV_FILE__) ? __TENDERS_CPV_FILE__ : join(__dirname, __TENDERS_CPV_FILE__));

let loaded: CpvVocabulary | undefined;

/**
 * The CPV 2008 vocabulary, read once, when a command first needs it whole (a
 * table's names, a count, `tenders cpv`): 330 kB that no other run reads.
 * Read at once, not through the thread pool: in a fresh process that took
 * 5 ms where this takes 1.5.
 */
export function cpvVocabulary(): CpvVocabulary {
  loaded ??= new CpvVocabulary(readFileSync(vocabularyFile(), 'utf8'));
  return loaded;
}

/** Names of a few codes, each looked up in the file (cpvNameFile). */
export interface CpvNameFile {
  name(code: string): string | undefined;
  close(): void;
}

/** Bytes read on either side of an offset: more than any line of the vocabulary holds (its longest is 147; a test keeps them under). */
export const CPV_LINE_BYTES_MAX = 256;

/**
 * The vocabulary's file open to name a few codes (`show`'s): each found by
 * reading the 14 lines its binary search steps on, where reading the whole
 * file took 3 ms of a show. Closed by `close`.
 */
export function cpvNameFile(): CpvNameFile {
  const fd = openSync(vocabularyFile(), 'r');
  const size = fstatSync(fd).size;
  const lineAt = (at: number): VocabularyLine => {
    const from = Math.max(0, at - CPV_LINE_BYTES_MAX);
    const bytes = Buffer.alloc(Math.min(size, at + CPV_LINE_BYTES_MAX) - from);
    const read = readSync(fd, bytes, 0, bytes.length, from);
    const before = at === from ? -1 : bytes.lastIndexOf(0x0a, at - from - 1);
    const after = bytes.indexOf(0x0a, before + 1);
    if ((before === -1 && from > 0) || (after === -1 && from + read < size)) throw new Error(`${vocabularyFile()}: a line near byte ${at} is longer than ${CPV_LINE_BYTES_MAX} bytes`);
    const start = before + 1;
    const end = after === -1 ? read : after;
    return { start: from + start, end: from + end, code: bytes.toString('latin1', start, start + 8), name: () => bytes.toString('utf8', start + 9, end) };
  };
  return {
    name: (code) => searchName(code, size, lineAt),
    close: () => closeSync(fd),
  };
}
