/**
 * A saved search: a sync, a watch. One model, whichever keeps it (a sync's
 * row in the copy, a watch's state file header, a watch's row in a
 * PostgreSQL copy): a name, the query it runs, the service it runs against,
 * and, once it ran, its history.
 */

/** What a saved search asks: the tender search, or an organisation's tenders (`org`), with this body (no limit, no cursor). */
export type SavedQuery = { org: string | null; body: Record<string, unknown> };

/** The query every tender answers: a saved search without filters. */
export const EVERY_TENDER: SavedQuery = { org: null, body: {} };

export interface SavedSearch {
  /** See model/saved-name.ts. */
  name: string;
  query: SavedQuery;
  /** The service's base URL, without credentials or a trailing slash; absent only in a watch state written before it was kept. */
  service?: string;
}

/** A saved search that ran: when it was made, when it last ran, and the tenders it holds (a sync) or knows (a watch). */
export interface SavedSearchInfo extends SavedSearch {
  /** ISO timestamp of its first run. */
  created: string;
  /** ISO timestamp of the end of its last run. */
  lastRun: string;
  tenders: number;
}
