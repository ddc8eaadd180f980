import type { IO } from '../io.js';
import { nodeFs, type FileSystem } from '../files/fs.js';
import { cpvVocabulary } from '../files/cpv-file.js';
import type { Reporter } from '../output/terminal/reporter.js';
import { writeList } from './list-output.js';
import type { OutputPlan } from './plan.js';

/**
 * `tenders cpv WORDS`: the vocabulary's entries every word matches, as
 * records {code, name} in code order; none is said on stderr, not an error
 * (as a search that finds nothing).
 */
export async function runCpvSearch(words: readonly string[], output: OutputPlan, io: IO, signal: AbortSignal, say: Reporter, fs: FileSystem = nodeFs): Promise<void> {
  const terms = words.flatMap((word) => word.split(/\s+/)).filter((word) => word !== '');
  const entries = cpvVocabulary().find(terms);
  if (entries.length === 0) {
    say.hint(`No CPV code matches '${terms.join(' ')}': try fewer or shorter words (clean, road), or a code (45).`);
    return;
  }
  await writeList(entries.map((entry) => ({ ...entry })), ['code', 'name'], output, io, signal, fs, say);
}
