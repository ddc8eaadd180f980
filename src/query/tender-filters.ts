import { CPV_DIVISIONS } from '../model/cpv.js';
import { stringifyExact } from '../model/exact-json.js';
import type { LocalSelection } from '../model/local-selection.js';
import { PAGE_SIZE_MAX } from './endpoints.js';
import { parseBuyerIds, parseCpvCodes, parseEur, parseInstant, parseWords, type Bound } from './local-values.js';
import { KNOWN_STATUSES, parseCountries, parseFilters, parseLimit, parseOrder, parseSavedName, parseSort, parseStatuses, SORT_ORDERS } from './validate.js';
import { SORT_FIELDS } from '../model/local-selection.js';

/**
 * Every tender filter, declared once: the flags of search, export, count,
 * fields, watch, orgs tenders (and sync), their request body, the query a
 * watch or sync describes, the partitions of a parallel walk, shell
 * completion and the local queries of `--local` all come from this table.
 * Adding a filter is adding a row (docs/adding-a-filter.md).
 */

/** A flag's value as commander gives it: a string, or every value of a repeatable flag. */
export type RawValue = string | string[];

/** Where a filter works: sent to the service, applied to the local copy (`--local`), or both. */
export type FilterScope = 'online' | 'local' | 'both';

export interface TenderFilter {
  /** The key of the parsed flags: commander's camel-case name of `flag` (--deadline-after → deadlineAfter). */
  key: string;
  /** `--country`; for the positional WORDS, the name it goes by in messages. */
  flag: string;
  short?: string;
  /** The value's name in help: `<codes>`; `[words...]` for a positional. */
  value: string;
  help: string;
  /** Given several times and comma-separated, collected into one list. */
  repeatable?: boolean;
  /** Values shown in help and offered by completion; the parser checks them (commander would refuse `--sort DEADLINE`). */
  suggest?: readonly string[];
  /** Values completion offers that help does not list (too many to read); the parser checks what is given. */
  complete?: readonly string[];
  /** The default said in help; nothing is set (the service's or the store's default applies). */
  defaultHelp?: string;
  scope: FilterScope;
  /** A positional argument (WORDS) rather than a flag. */
  positional?: boolean;
  /** The value checked and normalised; a UsageError (exit 2) names the flag and its rule. `now` is for durations. */
  parse(raw: RawValue, now?: Date): unknown;
  /** The request-body field it sets. */
  body?: string;
  /** Its value is a record of request-body fields of its own (--filter), written after the named ones. */
  bodyFields?: boolean;
  /** Paging, not selection: a saved query (watch, sync) leaves it out. */
  paging?: boolean;
  /** A parallel walk (and count --by) can split a query into one chain per value. */
  partition?: boolean;
  /** The LocalSelection field a local query sets from its value. */
  selection?: keyof LocalSelection;
  /**
   * A local-only filter's request field that a service may accept although the
   * spec does not show it: never sent unasked; the refusal without --local says
   * how to send it (`--filter FIELD=VALUE`, this being the example).
   */
  unshownField?: string;
  /** The additive request field `tenders serve` takes it as (a plain client of the service never sends it). */
  apiField?: string;
  /** A value to show in advice and docs. */
  example: string;
  /** The tender field it selects on: a table keeps that column in view (filteredColumns). */
  column?: string;
}

const list = (raw: RawValue): string[] => (Array.isArray(raw) ? raw : [raw]);
const one = (raw: RawValue): string => (Array.isArray(raw) ? raw[raw.length - 1]! : raw);

/** A date flag's parser: `bound` says which end of a day named alone it takes. */
const date = (flag: string, bound: Bound) => (raw: RawValue, now?: Date) => {
  if (!now) throw new Error(`${flag} is parsed against the time now, which was not given`);
  return parseInstant(flag, one(raw), now, bound);
};

/** The request fields --filter may not set: those a flag owns, and the cursor. */
const reserved = (): Record<string, string> => ({
  ...Object.fromEntries(TENDER_FILTERS.flatMap((row) => (row.body ? [[row.body, row.flag]] : []))),
  cursor: '--cursor',
});

const TABLE = [
  {
    key: 'country',
    flag: '--country',
    short: '-c',
    value: '<codes>',
    help: 'buyer country codes, three letters (repeatable, comma-separated)',
    repeatable: true,
    scope: 'both',
    parse: (raw: RawValue) => parseCountries(list(raw)),
    body: 'buyerCountries',
    partition: true,
    selection: 'countries',
    example: 'DEU,FRA,ITA',
    column: 'buyer.country',
  },
  {
    key: 'status',
    flag: '--status',
    short: '-s',
    value: '<values>',
    help: `tender statuses: ${KNOWN_STATUSES.join(', ')} is the one the service's API documents; others (closed, awarded, ...) are sent as given, lower-cased (repeatable, comma-separated)`,
    repeatable: true,
    scope: 'both',
    parse: (raw: RawValue) => parseStatuses(list(raw)),
    body: 'statuses',
    partition: true,
    selection: 'statuses',
    example: 'open,closed',
    column: 'status',
  },
  {
    key: 'sort',
    flag: '--sort',
    value: '<field>',
    help: 'sort field (any case)',
    suggest: SORT_FIELDS,
    scope: 'both',
    parse: (raw: RawValue) => parseSort(one(raw)),
    body: 'sortBy',
    selection: 'sortBy',
    example: 'deadline',
  },
  {
    key: 'order',
    flag: '--order',
    value: '<order>',
    help: 'sort order',
    suggest: SORT_ORDERS,
    defaultHelp: 'the service default for the sort field',
    scope: 'both',
    parse: (raw: RawValue) => parseOrder(one(raw)),
    body: 'sortOrder',
    selection: 'sortOrder',
    example: 'asc',
  },
  {
    key: 'limit',
    flag: '--limit',
    short: '-n',
    value: '<n>',
    help: `results per page, 1-${PAGE_SIZE_MAX}`,
    scope: 'both',
    parse: (raw: RawValue) => parseLimit(one(raw)),
    body: 'limit',
    paging: true,
    example: '50',
  },
  {
    key: 'filter',
    flag: '--filter',
    value: '<key=value>',
    help: 'extra request field; VALUE is parsed as JSON when valid (repeatable)',
    repeatable: true,
    scope: 'online',
    parse: (raw: RawValue) => parseFilters(list(raw), reserved()),
    bodyFields: true,
    example: 'minValue=1000000',
  },
  {
    key: 'words',
    flag: 'WORDS',
    value: '[words...]',
    help: 'with --local: full-text query over title and buyer name (words, "phrases", prefix*, OR, NOT)',
    positional: true,
    scope: 'local',
    parse: (raw: RawValue) => parseWords(list(raw)),
    selection: 'words',
    apiField: 'q',
    example: 'hospital cleaning',
  },
  {
    key: 'since',
    flag: '--since',
    value: '<date>',
    help: 'with --local: published on or after DATE (2026-03-01, a timestamp with its zone, or back from now: 30m, 12h, 7d, 2w)',
    scope: 'local',
    parse: date('--since', 'start'),
    selection: 'publishedSince',
    apiField: 'publishedFrom',
    example: '7d',
    column: 'publicationDate',
  },
  {
    key: 'until',
    flag: '--until',
    value: '<date>',
    help: 'with --local: published on or before DATE (a date counts to its end, UTC)',
    scope: 'local',
    parse: date('--until', 'end'),
    selection: 'publishedUntil',
    apiField: 'publishedTo',
    example: '2026-03-31',
    column: 'publicationDate',
  },
  {
    key: 'deadlineAfter',
    flag: '--deadline-after',
    value: '<date>',
    help: 'with --local: deadline on or after DATE (now, a date, a timestamp; +7d is a week ahead)',
    scope: 'local',
    parse: date('--deadline-after', 'start'),
    selection: 'deadlineAfter',
    apiField: 'deadlineFrom',
    example: 'now',
    column: 'deadline',
  },
  {
    key: 'deadlineBefore',
    flag: '--deadline-before',
    value: '<date>',
    help: 'with --local: deadline on or before DATE (a date counts to its end, UTC)',
    scope: 'local',
    parse: date('--deadline-before', 'end'),
    selection: 'deadlineBefore',
    apiField: 'deadlineTo',
    example: '+14d',
    column: 'deadline',
  },
  {
    key: 'minValue',
    flag: '--min-value',
    value: '<eur>',
    help: 'with --local: estimated value of at least EUR (250000, 1500.50, 1e6)',
    scope: 'local',
    parse: (raw: RawValue) => parseEur('--min-value', one(raw)),
    selection: 'minValueEur',
    apiField: 'minValueEur',
    example: '1e6',
    column: 'estimatedValue.amountEur',
  },
  {
    key: 'maxValue',
    flag: '--max-value',
    value: '<eur>',
    help: 'with --local: estimated value of at most EUR',
    scope: 'local',
    parse: (raw: RawValue) => parseEur('--max-value', one(raw)),
    selection: 'maxValueEur',
    apiField: 'maxValueEur',
    example: '5e6',
    column: 'estimatedValue.amountEur',
  },
  {
    key: 'cpv',
    flag: '--cpv',
    value: '<codes>',
    help: 'with --local: CPV codes, each selecting itself and every code below it (45 or 45000000: division 45; 4523: that class; a check digit is ignored) (repeatable, comma-separated)',
    repeatable: true,
    scope: 'local',
    complete: CPV_DIVISIONS,
    parse: (raw: RawValue) => parseCpvCodes(list(raw)),
    selection: 'cpv',
    apiField: 'cpvCodes',
    unshownField: 'cpvCodes=["45233140"]',
    example: '45233140',
  },
  {
    key: 'buyer',
    flag: '--buyer',
    value: '<id>',
    help: "with --local: the buyer's id (buyer.id) (repeatable, comma-separated)",
    repeatable: true,
    scope: 'local',
    parse: (raw: RawValue) => parseBuyerIds(list(raw)),
    selection: 'buyerIds',
    apiField: 'buyerIds',
    unshownField: 'buyerIds=["ORG-DEU-0007"]',
    example: 'ORG-DEU-0007',
  },
  {
    key: 'buyerName',
    flag: '--buyer-name',
    value: '<words>',
    help: "with --local: full-text query over the buyer's name alone, every word required",
    scope: 'local',
    parse: (raw: RawValue) => parseWords([one(raw)]),
    selection: 'buyerName',
    apiField: 'buyerName',
    example: 'hospital',
  },
  {
    key: 'sync',
    flag: '--sync',
    value: '<name>',
    help: 'with --local: only the tenders of the sync NAME',
    scope: 'local',
    parse: (raw: RawValue) => parseSavedName('sync', one(raw)),
    selection: 'sync',
    apiField: 'sync',
    example: 'deu-open',
  },
] as const satisfies readonly TenderFilter[];

/** The table, in the order of --help. */
export const TENDER_FILTERS: readonly TenderFilter[] = TABLE;

/** A key of the parsed flags that a row owns. */
export type FilterKey = (typeof TABLE)[number]['key'];

/** The filters that can split a query into chains, in the order a walk tries them. */
export type PartitionFilter = Extract<(typeof TABLE)[number], { partition: true }>;
export const PARTITION_FILTERS: readonly PartitionFilter[] = TABLE.filter((row): row is PartitionFilter => 'partition' in row);

/** The rows the online commands take (sent to the service), and those only `--local` takes. */
export const ONLINE_FILTERS: readonly TenderFilter[] = TENDER_FILTERS.filter((row) => row.scope !== 'local');
export const LOCAL_ONLY_FILTERS: readonly TenderFilter[] = TENDER_FILTERS.filter((row) => row.scope === 'local');

/** The rows a replica (`tenders serve`) takes as additive request fields. */
export const API_FIELD_FILTERS: readonly TenderFilter[] = TENDER_FILTERS.filter((row) => row.apiField !== undefined);

/** The row of a key of the parsed flags. */
export function tenderFilter(key: FilterKey): TenderFilter {
  return TENDER_FILTERS.find((row) => row.key === key)!;
}

/** The value given for a row, or undefined when it was not given (an empty list is not given). */
export function givenValue(flags: object, row: TenderFilter): RawValue | undefined {
  const raw = (flags as Record<string, unknown>)[row.key];
  if (typeof raw === 'string') return raw;
  return Array.isArray(raw) && raw.length > 0 ? (raw as string[]) : undefined;
}

/**
 * The fields the flags filter on, for a table to keep in view: a range
 * (--min-value, --deadline-before) or several values; not one value of a list
 * (--country DEU), which every row would repeat.
 */
export function filteredColumns(flags: object): string[] {
  return TENDER_FILTERS.flatMap((row) => {
    const value = row.column === undefined ? undefined : givenValue(flags, row);
    if (value === undefined || (row.repeatable && list(value).flatMap((v) => v.split(',')).length === 1)) return [];
    return [row.column!];
  });
}

/** Whether the flags choose tenders (a filter or a sort), as the first run of a saved query must; paging does not count. */
export function selectsTenders(flags: object): boolean {
  return TENDER_FILTERS.some((row) => !row.paging && givenValue(flags, row) !== undefined);
}

/** A request body as the flags that give it: ["-c DEU,FRA", "-s open", "--filter minValue=5"]. */
export function bodyAsFlags(body: Record<string, unknown>): string[] {
  // In the table's order, then --filter by key: the same words whatever order the body's keys were kept in (jsonb sorts them).
  const known = TENDER_FILTERS.flatMap((row) => {
    if (row.body === undefined || !Object.hasOwn(body, row.body)) return [];
    const value = body[row.body];
    return [`${row.short ?? row.flag} ${Array.isArray(value) ? value.join(',') : String(value)}`];
  });
  const others = Object.keys(body)
    .filter((key) => !TENDER_FILTERS.some((row) => row.body === key))
    .sort()
    .map((key) => `--filter ${key}=${typeof body[key] === 'string' ? (body[key] as string) : stringifyExact(body[key])}`);
  return [...known, ...others];
}
