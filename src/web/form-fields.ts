import { UsageError } from '../errors.js';
import type { LocalSelection } from '../model/local-selection.js';
import { TENDER_FILTERS, tenderFilter, type TenderFilter } from '../query/tender-filters.js';
import { localSelection } from '../query/tender-selection.js';

/**
 * The search form's fields, one per row of the filter table that a local
 * query takes: a filter added to the table is a field of the form (and a
 * parameter of the page's URL) without a change here. Each field is named as
 * the API names it (`buyerCountries`, `publishedFrom`), so that a page's URL
 * and a request to `tenders serve` say the same thing.
 */
export interface FormField {
  row: TenderFilter;
  /** The URL parameter and form field: the row's request field (online rows) or its replica field (local rows). */
  name: string;
  label: string;
  /** What the value may be: the row's help, for a person rather than a command line. */
  hint: string;
  /** Orders rather than selects: shown after the filters. */
  order: boolean;
}

/** Labels a field's name alone would not say well; any other name is spelt out (publishedFrom → Published from). */
const LABELS: Readonly<Record<string, string>> = { q: 'Search', minValueEur: 'Value from (EUR)', maxValueEur: 'Value to (EUR)', sortOrder: 'Order', cpvCodes: 'CPV codes', buyerIds: 'Buyer ids (buyer.id)' };

const ORDER_KEYS = new Set<keyof LocalSelection>(['sortBy', 'sortOrder']);

function spelt(name: string): string {
  const words = name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function fieldOf(row: TenderFilter): FormField | undefined {
  const name = row.body ?? row.apiField;
  if (row.scope === 'online' || row.paging || row.selection === undefined || name === undefined) return undefined;
  return { row, name, label: LABELS[name] ?? spelt(name), hint: row.help.replace(/^with --local: /, ''), order: ORDER_KEYS.has(row.selection) };
}

const FIELDS = TENDER_FILTERS.flatMap((row) => fieldOf(row) ?? []);

/** The form's fields: the full-text box first, the filters in the table's order, the order last. */
export const FORM_FIELDS: readonly FormField[] = [...FIELDS.filter((f) => f.row.positional), ...FIELDS.filter((f) => !f.row.positional && !f.order), ...FIELDS.filter((f) => f.order)];

/** The page size's parameter: the table's paging row. */
export const LIMIT_FIELD = tenderFilter('limit');

/** What the URL gives for each field, as typed (empty values dropped): what the form shows again and the links repeat. */
export type FormValues = ReadonlyMap<string, readonly string[]>;

export function formValues(query: URLSearchParams): FormValues {
  const values = new Map<string, string[]>();
  for (const field of FORM_FIELDS) {
    const given = query.getAll(field.name).filter((value) => value.trim() !== '');
    if (given.length > 0) values.set(field.name, field.row.repeatable || field.row.positional ? given : [given[given.length - 1]!]);
  }
  return values;
}

/** The URL parameters of a selection's values, in the form's order; `extra` (cursor, limit) after them. */
export function selectionQuery(values: FormValues, extra: Record<string, string | undefined> = {}): URLSearchParams {
  const query = new URLSearchParams();
  for (const field of FORM_FIELDS) for (const value of values.get(field.name) ?? []) query.append(field.name, value);
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) query.append(name, value);
  return query;
}

/**
 * The LocalSelection of the values, through the same parsers as the flags of
 * `search --local` (query/tender-selection.ts): the page and the command
 * select the same tenders. A refused value is a UsageError that names the
 * field as the page does (`publishedFrom`, not `--since`).
 */
export function formSelection(values: FormValues, now: Date): LocalSelection {
  const flags: Record<string, string[] | string> = {};
  for (const field of FORM_FIELDS) {
    const given = values.get(field.name);
    if (given !== undefined) flags[field.row.key] = field.row.repeatable || field.row.positional ? [...given] : given[0]!;
  }
  try {
    return localSelection(flags, now);
  } catch (err) {
    throw err instanceof UsageError ? new UsageError(inFieldNames(err.message)) : err;
  }
}

/** A message of the command line's parsers with each flag named as the form's field. */
export function inFieldNames(message: string): string {
  return FORM_FIELDS.reduce((text, field) => text.replaceAll(field.row.flag, field.name), message);
}
