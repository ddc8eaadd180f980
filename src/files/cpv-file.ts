import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { CpvVocabulary } from '../model/cpv-vocabulary.js';

/**
 * Where the CPV vocabulary is: beside the bundle (scripts/build.js copies
 * data/cpv-2008.tsv into dist/ and names it here), or, where src/ runs as it
 * is (vitest), the repository's data/cpv-2008.tsv as an absolute path.
 */
declare const __TENDERS_CPV_FILE__: string;

let loaded: Promise<CpvVocabulary> | undefined;

/**
 * The CPV 2008 vocabulary, read once, when a command first needs a name (a
 * table, a count, `tenders cpv`, `show`): 330 kB that no other run reads.
 */
export function cpvVocabulary(): Promise<CpvVocabulary> {
  const file = isAbsolute(__TENDERS_CPV_FILE__) ? __TENDERS_CPV_FILE__ : join(__dirname, __TENDERS_CPV_FILE__);
  loaded ??= readFile(file, 'utf8').then((text) => new CpvVocabulary(text));
  return loaded;
}
