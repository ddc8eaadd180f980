import { sameCpvPaths } from '../model/cpv.js';
import type { Reporter } from '../output/terminal/reporter.js';
import type { Store } from '../store/store.js';

/**
 * The paths the copy's CPV codes were read from: where a read of the copy
 * names codes, as --cpv selects by them. A read never reads the documents
 * again, so a cpv-paths setting that names other paths waits for a sync;
 * --verbose says so (the question when --local --cpv finds less than expected).
 */
export async function copyCpvPaths(store: Store, setting: readonly string[], say: Reporter): Promise<readonly string[]> {
  const copy = await store.cpvPaths();
  if (!sameCpvPaths(copy, setting)) {
    say.debug(`cpv-paths ${setting.join(',')}: the copy's CPV codes were read from ${copy.join(',')}, and a read uses them as they are; tenders sync reads them again from ${setting.join(',')}`);
  }
  return copy;
}
