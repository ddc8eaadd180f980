import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import type { IO } from '../io.js';
import type { LocalSelection } from '../model/local-selection.js';
import { PAGE_SIZE_DEFAULT, type Endpoint } from '../query/endpoints.js';
import { decodeLocalCursor } from '../query/local-cursor.js';
import { filteredColumns } from '../query/tender-filters.js';
import { localSelection } from '../query/tender-selection.js';
import { parseLimit } from '../query/validate.js';
import type { LocalPlan } from '../run/local-source.js';
import type { WalkPlan } from '../run/plan.js';
import { ResultOrder } from '../run/sort-order.js';
import { storeTarget, type StoreTarget } from '../store/location.js';
import { localFilterFlags, type GlobalFlags, type LocalFilterFlags, type TenderFilterFlags } from './flags.js';
import { cpvPathsPlan, interactiveFormat, localConnectionPlan, outputFile, outputPlan, parseMax, parseShown, receiptPlan, nextPageCommand } from './flag-plans.js';
import type { PagedFlags } from './paged-command.js';

/** The flags a command with --local adds: --local itself and where the copy is. */
export interface LocalFlags {
  local?: boolean;
  db?: string;
}

/**
 * Flags that steer requests to the service and would change what a local
 * query does if they were quietly dropped: refused (exit 2) with --local.
 * The connection flags (--base-url, --timeout, --retries, --max-wait, --rate)
 * are ignored instead: they are often set once for every command.
 */
const ONLINE_ONLY: readonly { key: string; flag: string }[] = [
  { key: 'parallel', flag: '--parallel' },
  { key: 'sortPath', flag: '--sort-path' },
  { key: 'resume', flag: '--resume' },
  { key: 'path', flag: '--path' },
  { key: 'dryRun', flag: '--dry-run' },
];

/** A flag for the service given with --local: a usage error that says why. */
export function refuseOnlineFlags(flags: object): void {
  for (const { key, flag } of ONLINE_ONLY) {
    if ((flags as Record<string, unknown>)[key] === undefined || (flags as Record<string, unknown>)[key] === false) continue;
    const why = key === 'resume' ? 'a local export reads the copy in seconds and starts afresh' : 'a local query sends no request';
    throw new UsageError(`${flag} is for queries of the service; ${why}: leave out ${flag} or --local`);
  }
}

/** The selection and the copy's location of a command run with --local: checked before the copy is opened. */
export function localQuery(command: Command, io: IO, now: Date): { flags: TenderFilterFlags & LocalFilterFlags & LocalFlags; selection: LocalSelection; db: StoreTarget } {
  const flags = localFilterFlags(command) as TenderFilterFlags & LocalFilterFlags & LocalFlags;
  refuseOnlineFlags({ ...flags, dryRun: command.optsWithGlobals<GlobalFlags>().dryRun });
  const { limit: _limit, ...selecting } = flags;
  return { flags, selection: localSelection(selecting, now), db: storeTarget(flags.db, io.env) };
}

/** search/export --local: the same walk plan as online, its pages from the copy. */
export function localWalkPlan(
  command: Command,
  mode: 'search' | 'export',
  endpoint: Endpoint,
  io: IO,
  line: { name: string; argv: readonly string[]; invocation?: readonly string[] },
  now: Date,
): { plan: WalkPlan; local: LocalPlan } {
  const { flags, selection, db } = localQuery(command, io, now);
  const paged = flags as PagedFlags<TenderFilterFlags>;
  const exporting = mode === 'export';
  const globals = command.optsWithGlobals<GlobalFlags>();
  const connection = localConnectionPlan(globals, db.location);
  const output = outputPlan(paged, exporting ? 'csv' : interactiveFormat(io, outputFile(paged)));
  const pageSize = flags.limit === undefined ? PAGE_SIZE_DEFAULT : parseLimit(flags.limit);
  const after = paged.cursor === undefined ? undefined : decodeLocalCursor(paged.cursor, selection);
  const plan: WalkPlan = {
    connection,
    query: { path: '', body: { ...selection }, noun: endpoint.noun, fieldsCommand: endpoint.fieldsCommand },
    cursor: paged.cursor,
    shown: parseShown(paged),
    all: exporting || Boolean(paged.all),
    max: parseMax(paged),
    hints: !exporting,
    nextPageCommand: exporting ? undefined : nextPageCommand(line),
    resumable: false,
    parallel: 1,
    receipt: paged.receipt !== undefined ? receiptPlan(paged.receipt, line) : undefined,
    // The setting: the copy's own paths replace it once the copy is open (run/copy-cpv-paths.ts).
    output: { ...output, defaultColumns: endpoint.columns, sortColumn: sortColumn(selection), filterColumns: filteredColumns(flags), cpvPaths: cpvPathsPlan(globals, io.env) },
  };
  return { plan, local: { db, selection, pageSize, after } };
}

/** The field a table keeps in view: what the selection is sorted by, as online. */
function sortColumn(selection: LocalSelection): string {
  return new ResultOrder(selection.sortBy ? { sortBy: selection.sortBy } : {}).path;
}
