import { createFormatter, type Formatter } from '../../output/formatter.js';
import { compilePaths, discoverPaths, project } from '../../output/paths.js';
import type { ColumnSpec } from '../../output/table-columns.js';
import type { OutputPlan } from '../plan.js';
import type { WatchChange } from './diff.js';

/** The leading columns of a watch's CSV and table rows. */
export const CHANGE_COLUMNS = ['change', 'changedFields'];
/** In a table they stay longest; the list of fields gives way like a title. */
const CHANGE_SPECS: ColumnSpec[] = [
  { path: 'change', header: 'change', priority: 100 },
  { path: 'changedFields', header: 'changedFields', priority: 99, cut: 14 },
];

/**
 * Writes a watch's changes in the chosen format. CSV and table rows are the
 * tender's columns behind `change` and `changedFields` (`;`-separated);
 * NDJSON and JSON rows are {change, changedFields, tender}, the tender as the
 * service sent it (projected by --columns). Nothing at all when nothing
 * changed, in every format: an empty output is what cron does not mail.
 */
export class ChangeOutput {
  rows = 0;
  #formatter: Formatter | undefined;
  #discovered: string[] | undefined;
  readonly #nested: boolean;
  readonly #paths: string[][] | undefined;

  constructor(
    private readonly plan: OutputPlan,
    private readonly write: (chunk: string) => Promise<void>,
    private readonly display: { width: number | undefined; color: boolean; terminal: boolean },
  ) {
    this.#nested = plan.format === 'ndjson' || plan.format === 'json';
    this.#paths = plan.columns && compilePaths(plan.columns);
  }

  /** The walk's first page: CSV takes its tender columns from it, as an export does. */
  firstPage(tenders: readonly Record<string, unknown>[]): void {
    if (this.plan.format === 'csv' && !this.plan.columns && tenders.length > 0) this.#discovered = discoverPaths(tenders);
  }

  async add(changes: readonly WatchChange[]): Promise<void> {
    if (changes.length === 0) return;
    const rows = changes.map((c) => this.#row(c));
    this.#formatter ??= await this.#create(changes);
    this.rows += rows.length;
    await this.write(this.#formatter.page(rows));
  }

  /** The closing text of the format, when anything was written. */
  async end(): Promise<void> {
    if (this.#formatter) await this.write(this.#formatter.end());
  }

  #row({ change, changedFields, tender }: WatchChange): Record<string, unknown> {
    if (this.#nested) return { change, changedFields, tender: this.#paths ? project(tender, this.#paths) : tender };
    // The change columns win over tender fields of the same name (the NDJSON rows keep those).
    return { ...tender, change, changedFields: changedFields.join(';') };
  }

  #create(first: readonly WatchChange[]): Promise<Formatter> {
    const { format, columns, defaultColumns, header, headerStyle, excelSafe } = this.plan;
    const tenderColumns = (columns ?? (format === 'csv' ? (this.#discovered ?? discoverPaths(first.map((c) => c.tender))) : undefined))?.filter(
      (column) => !CHANGE_COLUMNS.includes(column),
    );
    return createFormatter(format, {
      columns: this.#nested ? undefined : tenderColumns && [...CHANGE_COLUMNS, ...tenderColumns],
      defaultColumns: [...CHANGE_SPECS, ...(defaultColumns ?? [])],
      header,
      headerStyle,
      excelSafe,
      ...this.display,
    });
  }
}
