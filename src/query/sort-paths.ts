import { UsageError } from '../errors.js';
import type { Env } from '../io.js';
import { splitList } from './validate.js';
import { SORT_FIELDS, type SortField } from '../model/local-selection.js';

/** Where results carry their sort values, per sort field, where they differ from the defaults. */
export type SortPaths = Partial<Record<SortField, string>>;

/**
 * --sort-path FIELD=PATH (repeatable), over TENDERS_SORT_PATHS="FIELD=PATH,...":
 * the dot path at which a result holds the value the service sorts it by.
 */
export function parseSortPaths(flags: readonly string[] | undefined, env: Env): SortPaths {
  const paths: SortPaths = {};
  const fromEnv = env.TENDERS_SORT_PATHS?.trim() ? splitList('TENDERS_SORT_PATHS', [env.TENDERS_SORT_PATHS]) : [];
  for (const pair of [...fromEnv, ...(flags ? splitList('--sort-path', flags) : [])]) {
    const eq = pair.indexOf('=');
    const field = SORT_FIELDS.find((f) => f.toLowerCase() === pair.slice(0, eq).trim().toLowerCase());
    const path = pair.slice(eq + 1).trim();
    if (eq <= 0 || !field || path === '' || path.split('.').some((part) => part === '')) {
      throw new UsageError(`--sort-path takes FIELD=PATH, FIELD one of ${SORT_FIELDS.join(', ')} and PATH a dot path such as estimatedValue.amountEur, not '${pair}'`);
    }
    paths[field] = path;
  }
  return paths;
}
