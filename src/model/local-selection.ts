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
  /** Publication date bounds, inclusive, as ISO timestamps (UTC). */
  publishedSince?: string;
  publishedUntil?: string;
  /** Deadline bounds, inclusive, as ISO timestamps (UTC); a tender without deadline is left out when either is set. */
  deadlineAfter?: string;
  deadlineBefore?: string;
  /** Estimated value bounds in EUR, inclusive; a tender without value is left out when either is set. */
  minValueEur?: number;
  maxValueEur?: number;
  /** Only the tenders of this sync. */
  sync?: string;
  /** The service's sort rules (service-spec 3.2): default publicationDate; order defaults per field; ties by id. */
  sortBy?: 'publicationDate' | 'deadline' | 'estimatedValue';
  sortOrder?: 'asc' | 'desc';
}
