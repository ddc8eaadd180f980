/** The rules of what the store is given (sync names, dot paths, full-text queries), shared by both engines. */

import { UsageError } from '../errors.js';
import { ftsMessage } from './fts5-query.js';
import { stringifyExact } from '../model/exact-json.js';
import { queryKey } from '../model/query-key.js';
import { SAVED_NAME } from '../model/saved-name.js';
import type { SyncDefinition } from './store.js';

export function checkSyncName(name: string): string {
  if (!SAVED_NAME.test(name)) {
    throw new UsageError(`a sync name is up to 100 letters, digits, '-', '_' and '.', not starting with '.': '${name}' is not one`);
  }
  return name;
}

/** The keys of a dot path ("buyer.name" → buyer, name); UsageError for an empty key or a double quote. */
export function dotPathKeys(path: string): string[] {
  const keys = path.split('.');
  if (keys.some((key) => key === '' || key.includes('"'))) {
    throw new UsageError(`'${path}' is not a field path: keys joined by dots, none empty, as in buyer.name or estimatedValue.amountEur`);
  }
  return keys;
}

/** A full-text query the engine refused (its reason): one line in tenders' words (fts5-query.ts). */
export function ftsError(words: string, reason: string): UsageError {
  return new UsageError(ftsMessage(words, reason));
}

/** A sync's saved query or service that differs from this run's: refused unless reset. */
function definitionMismatch(name: string, what: 'query' | 'service', saved: string, given: string): UsageError {
  return new UsageError(
    `sync '${name}' was saved with ${what === 'query' ? 'the query' : 'the service'} ${saved}, not ${given}: ` +
      `run it without filters to reuse the saved ${what}, or with --reset to replace it`,
  );
}

/** A run of `sync` against its saved definition: a query or service that differs is refused unless reset. */
export function checkDefinition(sync: SyncDefinition, saved: SyncDefinition | undefined, reset = false): void {
  if (!saved || reset) return;
  if (queryKey(saved.query) !== queryKey(sync.query)) throw definitionMismatch(sync.name, 'query', stringifyExact(saved.query), JSON.stringify(sync.query));
  if (saved.service !== sync.service) throw definitionMismatch(sync.name, 'service', saved.service, sync.service);
}

/** How long a writer waited for another, as its error says it: `30 s`, `0.2 s`. */
export function waited(ms: number): string {
  return `${ms < 1000 ? (ms / 1000).toFixed(1) : Math.round(ms / 1000)} s`;
}

/** The full-text words of a selection an engine's refusal is about: `words`, else the buyer's name's. */
export function ftsWords(selection: { words?: string; buyerName?: string }): string | undefined {
  return selection.words ?? selection.buyerName;
}
