/**
 * The indexes of `tenders` beside its keys, the same SQL in both engines, all
 * partial: local queries read the tenders some sync matches. A run that
 * writes more tenders than the table holds, and a new copy's first run, build
 * them once the rows are in (sorting once beats inserting at random places).
 */
export const TENDER_INDEXES = [
  'CREATE INDEX tenders_published ON tenders (published, id) WHERE gone_at IS NULL;',
  'CREATE INDEX tenders_deadline ON tenders (deadline, id) WHERE gone_at IS NULL;',
  'CREATE INDEX tenders_value_eur ON tenders (value_eur, id) WHERE gone_at IS NULL;',
  // A country's tenders in the default order: its first page is the index's first rows, not all of them sorted.
  'CREATE INDEX tenders_buyer_country ON tenders (buyer_country, published, id) WHERE gone_at IS NULL;',
  'CREATE INDEX tenders_status ON tenders (status) WHERE gone_at IS NULL;',
  'CREATE INDEX tenders_buyer_name ON tenders (buyer_name) WHERE gone_at IS NULL;',
];

/** The name of the index a `CREATE [UNIQUE] INDEX` statement (an entry of TENDER_INDEXES, a key) makes. */
export function indexName(sql: string): string {
  return /INDEX (\w+)/.exec(sql)![1]!;
}
