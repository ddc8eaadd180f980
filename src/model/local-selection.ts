/**
 * What a local query (`search --local`, `export --local`, `count --local`)
 * selects from the copy `tenders sync` keeps: the meeting point of the filter
 * table (which parses flags into it) and the store engines (which turn it into
 * SQL). Every field is optional; an empty selection is every stored tender.
 */
export interface LocalSelection {
  /** Full-text query over title and buyer name (FTS5 syntax: words, "phrases", prefix*, OR, NOT). */
  words?: string;
  /** Buyer countries, ISO 3166-1 alpha-3, upper case. */
  countries?: string[];
  /** Statuses, lower case. */
  statuses?: string[];
  /**
   * Publication date bounds, inclusive, as ISO timestamps in UTC with
   * milliseconds (2026-03-31T23:59:59.999Z): a day named alone already reaches
   * its start (lower bound) or its last millisecond (upper bound). The service
   * sends publication dates as days (2026-03-01): compare the day's start.
   */
  publishedSince?: string;
  publishedUntil?: string;
  /** Deadline bounds, inclusive, in the same form; a tender without deadline is left out when either is set. */
  deadlineAfter?: string;
  deadlineBefore?: string;
  /** Estimated value bounds in EUR, inclusive; a tender without value is left out when either is set. */
  minValueEur?: number;
  maxValueEur?: number;
  /**
   * CPV code prefixes (model/cpv.ts cpvPrefix: digits, no check digit, trailing
   * zeros dropped, at least two digits): a tender matches when any of its codes
   * (model/cpv.ts tenderCpvCodes) starts with any of them.
   */
  cpv?: string[];
  /** Buyer ids (`buyer.id`), as typed: a tender matches when its buyer's id is one of them. */
  buyerIds?: string[];
  /** Full-text words over the buyer's name alone (same syntax as `words`); every word required. */
  buyerName?: string;
  /** Only the tenders of this sync. */
  sync?: string;
  /** Only the tenders any of these syncs holds (`tenders serve --sync`, which may name several). */
  syncs?: string[];
  /** The service's sort rules (service-spec 3.2): default publicationDate; order defaults per field; ties by id. */
  sortBy?: 'publicationDate' | 'deadline' | 'estimatedValue';
  sortOrder?: 'asc' | 'desc';
}

/** The service's default order of each sort field (spec 3.2). */
export const SORT_DEFAULT_ORDER = { publicationDate: 'desc', deadline: 'asc', estimatedValue: 'desc' } as const;

/** The service's sort fields (spec 3.2), in its order: the flag, the contract and the copy take these. */
export type SortField = keyof typeof SORT_DEFAULT_ORDER;
export const SORT_FIELDS = Object.keys(SORT_DEFAULT_ORDER) as SortField[];
