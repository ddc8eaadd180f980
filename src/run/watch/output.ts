import { BEFORE, type WatchFeedInfo } from '../../output/formats/atom-formatter.js';
import { traitsOf } from '../../output/format-registry.js';
import { createFormatter, type Chunk, type Formatter } from '../../output/formatter.js';
import type { FormatTraits } from '../../output/format-definition.js';
import { holdsRawNumber, markHolder } from '../../model/exact-json.js';
import { compilePaths, discoverPaths, project } from '../../model/paths.js';
import type { ColumnSpec } from '../../model/column-spec.js';
import type { OutputPlan } from '../plan.js';
import type { WatchChange } from './watch-changes.js';

const TABLE_FIRST_ROWS = 100;

/** Formats whose rows are flat columns that the first page of tenders sets (as an export's). */

/** The leading columns of a watch's CSV and table rows. */
export const CHANGE_COLUMNS = ['change', 'changedFields'];
/** In a table they stay longest; the list of fields gives way only once the title is at its narrowest. */
const CHANGE_SPECS: ColumnSpec[] = [
  { path: 'change', header: 'change', priority: 100, width: 'changed'.length },
  { path: 'changedFields', header: 'changedFields', priority: 99, cut: 14, cutLast: true },
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
  /** A table's first rows, held until there are enough to set its column widths. */
  readonly #held: WatchChange[] = [];
  #discovered: string[] | undefined;
  readonly #traits: FormatTraits;
  readonly #nested: boolean;
  readonly #paths: string[][] | undefined;

  constructor(
    private readonly plan: OutputPlan,
    private readonly write: (chunk: Chunk) => Promise<void>,
    private readonly display: { width: number | undefined; color: boolean; terminal: boolean },
    /** The watch and the run its changes are since (an Atom entry's id), known once the previous state is read. */
    private readonly watch: () => WatchFeedInfo,
  ) {
    this.#traits = traitsOf(plan.format);
    this.#nested = this.#traits.rows === 'documents';
    this.#paths = plan.columns && compilePaths(plan.columns);
  }

  /** The walk's first page: a format with fixed columns (CSV) takes its tender columns from it, as an export does. */
  firstPage(tenders: readonly Record<string, unknown>[]): void {
    if (this.#traits.fixedColumns && !this.plan.columns && tenders.length > 0) this.#discovered = discoverPaths(tenders);
  }

  async add(changes: readonly WatchChange[]): Promise<void> {
    if (changes.length === 0) return;
    if (this.#traits.streaming !== 'first-rows' || this.#formatter) return this.#emit(changes);
    // Changes come a few at a time: a table waits for a page's worth before it sets its widths.
    this.#held.push(...changes);
    if (this.#held.length >= TABLE_FIRST_ROWS) await this.#emit(this.#held.splice(0));
  }

  /** What is held, and the closing text of the format, when anything was written. */
  async end(): Promise<void> {
    if (this.#held.length > 0) await this.#emit(this.#held.splice(0));
    if (this.#formatter) await this.write(this.#formatter.end());
  }

  /** Lines for a person on stderr (a table's hidden columns). */
  hints(): string[] {
    return this.#formatter?.hints?.() ?? [];
  }

  /** What the format lost or bent (OCDS statuses, Parquet values): warnings, in cron too. */
  warnings(): string[] {
    return this.#formatter?.warnings?.() ?? [];
  }

  async #emit(changes: readonly WatchChange[]): Promise<void> {
    const rows = changes.map((c) => this.#row(c));
    this.#formatter ??= await this.#create(changes);
    this.rows += rows.length;
    await this.write(this.#formatter.page(rows));
  }

  #row({ change, changedFields, tender, before }: WatchChange): Record<string, unknown> {
    // A row holding a tender with numbers a double cannot hold is marked, so formats write their digits.
    const exact = <T extends object>(row: T): T => {
      if (holdsRawNumber(tender)) markHolder(row);
      return row;
    };
    if (this.#nested) {
      const shown = this.#paths ? project(tender, this.#paths) : tender;
      return exact({ change, changedFields, tender: shown });
    }
    // The change columns win over tender fields of the same name (the NDJSON rows keep those); an Atom entry says the old values.
    return exact({ ...tender, change, changedFields: changedFields.join(';'), ...(before && { [BEFORE]: before }) });
  }

  #create(first: readonly WatchChange[]): Promise<Formatter> {
    const { format, columns, defaultColumns, header, headerStyle, excelSafe, reminders, ocidPrefix } = this.plan;
    const tenderColumns = (columns ?? (this.#traits.fixedColumns ? (this.#discovered ?? discoverPaths(first.map((c) => c.tender))) : undefined))?.filter(
      (column) => !CHANGE_COLUMNS.includes(column),
    );
    return createFormatter(format, {
      columns: this.#nested ? undefined : tenderColumns && [...CHANGE_COLUMNS, ...tenderColumns],
      defaultColumns: [...CHANGE_SPECS, ...(defaultColumns ?? [])],
      header,
      headerStyle,
      excelSafe,
      reminders,
      ocidPrefix,
      watch: this.watch(),
      ...this.display,
    });
  }
}
