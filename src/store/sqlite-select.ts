/**
 * SQLite's plan of a selection's words and codes (see FtsPlan in sql/selection.ts):
 * when the matches are many, a page is found by walking an index in the order and
 * probing each tender; when they are few, by finding them and sorting.
 */

import type Database from 'better-sqlite3';
import type { LocalSelection } from '../model/local-selection.js';
import { codeRange, hasWords, type Plans } from './sql/selection.js';

/** Matches from which a page is found by walking the order (see FtsPlan). */
const PROBE_FROM = 2000;
/**
 * ...and that are at least one tender in this many: sparser matches cost a
 * probe (a full-text query) per tender walked past, about this many per match.
 * 'cleaning services', 2 500 of 200 000 tenders: 260 ms probing, 20 ms sorting.
 */
const PROBE_DENSITY = 10;

/** Many matches: walk the order and probe; few: find them and sort. Of the words and of the codes. */
export function selectPlans(db: Database.Database, selection: LocalSelection): Plans {
  const plans: Plans = {};
  if (!hasWords(selection.words) && !selection.cpv?.length) return plans;
  // Row numbers only grow: the largest is the size of the table, read from the key, at once.
  const [rows] = db.prepare('SELECT coalesce(max(seq), 0) FROM tenders').raw().get() as [number];
  const enough = Math.max(PROBE_FROM, Math.ceil(rows / PROBE_DENSITY));
  const many = (sql: string, ...params: unknown[]) => (db.prepare(`SELECT count(*) FROM (${sql} LIMIT ${enough})`).raw().get(...params) as [number])[0] >= enough;
  if (hasWords(selection.words)) plans.words = many('SELECT rowid FROM tenders_fts WHERE tenders_fts MATCH ?', selection.words) ? 'probe' : 'matches';
  if (selection.cpv?.length) {
    // Codes, not tenders (a tender has a few). `--cpv 45 -c DEU`, 200 000 tenders, 110 000 codes under 45: listing
    // their tenders first took 100 ms, walking Germany's by date and probing each 1 ms; a code of few tenders,
    // probed, walked the whole table (500 ms).
    const ranges = selection.cpv.map(() => '(code >= ? AND code < ?)').join(' OR ');
    plans.codes = many(`SELECT 1 FROM tender_cpv WHERE ${ranges}`, ...selection.cpv.flatMap(codeRange)) ? 'probe' : 'matches';
  }
  return plans;
}
