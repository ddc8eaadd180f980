/**
 * Schema upgrades written once for both engines (each engine's schema file
 * numbers them: SQLite's version 6, PostgreSQL's 8).
 */

import { indexName, TENDER_INDEXES } from '../tender-indexes.js';

const COUNTRY_INDEX = TENDER_INDEXES.find((sql) => indexName(sql) === 'tenders_buyer_country')!;

/**
 * The country index gains the date (a country's first page is its first rows), and
 * tender_cpv keeps the codes of tenders not gone only (count --by cpv then reads it
 * alone): a copy made before holds the codes of its gone tenders too.
 */
export const COUNTRY_DATE_AND_LIVE_CODES = [
  'DROP INDEX tenders_buyer_country',
  COUNTRY_INDEX,
  'DELETE FROM tender_cpv WHERE id IN (SELECT id FROM tenders WHERE gone_at IS NOT NULL)',
];
