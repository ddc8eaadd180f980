/** What every command's action gets from the program beyond its flags. */
export interface CommandContext {
  /** Aborted on SIGINT/SIGTERM. */
  signal: AbortSignal;
}

export const TENDERS_PATH = '/api/v1/tenders/search';

/** Table columns for tenders when --columns is not given. */
export const TENDER_COLUMNS = [
  'id',
  'publicationDate',
  'deadline',
  'status',
  'buyer.country',
  'buyer.name',
  'estimatedValue.amountEur',
  'title',
];
