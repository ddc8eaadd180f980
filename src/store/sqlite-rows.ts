/**
 * A page of tenders as a SQLite run stages it: the typed columns and the
 * document's exact JSON text of each, in one flat array (what crosses to the
 * run's thread in one message, cheaply cloned), made on the walk's thread
 * where the parsed tenders are.
 */

import { stringifyJson } from '../model/exact-json.js';
import { tenderColumns, tenderId } from './columns.js';

export const STAGED_COLUMNS = 'id, published, deadline, status, buyer_id, buyer_name, buyer_country, title, value_eur, cpv, doc';
export const STAGED_WIDTH = STAGED_COLUMNS.split(',').length;

export interface StagedPage {
  /** STAGED_WIDTH values per tender with an id, in the page's order. */
  values: unknown[];
  /** Tenders in the page, with or without an id. */
  seen: number;
  /** Tenders without a string or number id: not staged. */
  withoutId: number;
}

/** `cpvPaths`: where each tender's CPV codes are read from (RunOptions.cpvPaths). */
export function stagedPage(tenders: readonly Record<string, unknown>[], cpvPaths: readonly string[]): StagedPage {
  const values: unknown[] = [];
  let withoutId = 0;
  for (const tender of tenders) {
    const id = tenderId(tender);
    if (id === undefined) {
      withoutId++;
      continue;
    }
    const c = tenderColumns(id, tender, cpvPaths);
    values.push(id, c.published, c.deadline, c.status, c.buyerId, c.buyerName, c.buyerCountry, c.title, c.valueEur, c.cpv, stringifyJson(tender));
  }
  return { values, seen: tenders.length, withoutId };
}
