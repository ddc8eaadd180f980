import type { Command } from 'commander';
import { ServiceError } from '../api/errors.js';
import { UsageError } from '../errors.js';
import { parseSortPaths, type SortPaths } from '../query/sort-paths.js';
import type { Format } from '../output/format-registry.js';
import { endpointPath, PAGE_SIZE_MAX, type Endpoint } from '../query/endpoints.js';
import { filteredColumns } from '../query/tender-filters.js';
import { firstRequests } from '../run/partition.js';
import type { RunDeps, WalkPlan } from '../run/plan.js';
import { ResultOrder } from '../run/sort-order.js';
import { withClient, withPager, type CommandContext } from './context.js';
import type { LocalFlags } from './local-plan.js';
import {
  addLocalFilters,
  addOutputFlags,
  allOption,
  cursorOption,
  dbOption,
  localFilterFlags,
  localOption,
  examples,
  parallelOption,
  pathOption,
  receiptOption,
  resumeOption,
  shownOption,
  sortPathOption,
  type GlobalFlags,
  type OutputFlags,
} from './flags.js';
import { connectionPlan, cpvPathsPlan, interactiveFormat, parseShown, outputFile, outputPlan, parseMax, parseParallel, receiptPlan, nextPageCommand } from './flag-plans.js';

/** The flags of a paged command, as commander parsed them: its filters plus paging and output. */
export type PagedFlags<F> = F &
  OutputFlags & { all?: boolean; cursor?: string; shown?: string; path?: string; parallel?: string; sortPath?: string[]; receipt?: string };

/**
 * A command that walks a search operation, declared rather than coded: adding
 * one is a spec and its body builder. `search` mode prints one page unless
 * --all/--max and gives hints; `export` mode walks everything and can resume.
 */
export interface PagedCommandSpec<F> {
  name: string;
  summary: string;
  description: string;
  examples: string[];
  /** A positional argument (ORG_ID), passed to `body` and filled into the path. */
  argument?: { name: string; description: string };
  endpoint: Endpoint;
  /** Adds the command's filter flags (tender or organisation). */
  filters(cmd: Command): void;
  /** The request body for the flags; `pageSize` when neither --limit nor the service default applies. */
  body(flags: F, pageSize: number | undefined): Record<string, unknown>;
  mode: 'search' | 'export';
  /** Page size asked for when neither --limit nor --max: exports ask for the largest. */
  pageSize?: number;
  /** Whether --path may move the operation (the organisation operations are not in the spec). */
  pathFlag?: boolean;
  /** What to try when the service answers 404 (an ORG_ID it does not know). */
  notFound?: string;
  /** Whether --parallel may split the query (tender queries: by country or status). */
  partitionable?: boolean;
  /** Whether --local may ask the copy tenders sync keeps instead (tender queries); adds WORDS and the local filters. */
  local?: boolean;
}

export function registerPaged<F>(parent: Command, spec: PagedCommandSpec<F>, ctx: CommandContext): Command {
  const cmd = parent.command(spec.name).summary(spec.summary).description(spec.description);
  if (spec.argument) cmd.argument(`<${spec.argument.name}>`, spec.argument.description);
  spec.filters(cmd);
  if (spec.local) {
    addLocalFilters(cmd);
    cmd.addOption(localOption()).addOption(dbOption());
  }
  if (spec.mode === 'search') cmd.addOption(cursorOption()).addOption(shownOption()).addOption(allOption());
  // Habits from search, taken (unlisted) to say what export does instead.
  if (spec.mode === 'export') cmd.addOption(cursorOption().hideHelp()).addOption(allOption().hideHelp());
  if (spec.pathFlag && spec.endpoint.envName) cmd.addOption(pathOption(spec.endpoint.envName, spec.endpoint.path));
  addOutputFlags(cmd, spec.mode === 'export' ? 'csv' : 'table on a terminal, else ndjson', { tenders: spec.endpoint.noun === 'tenders' });
  if (spec.partitionable) cmd.addOption(parallelOption()).addOption(sortPathOption());
  if (spec.mode === 'export') cmd.addOption(resumeOption()).addOption(receiptOption());
  cmd.addHelpText('after', examples(spec.examples));
  cmd.action(async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const id = spec.argument ? (args[0] as string) : undefined;
    const globals = command.optsWithGlobals<GlobalFlags>();
    const line = {
      name: commandName(command),
      argv: ctx.argv,
      get invocation() {
        return ctx.invocation;
      },
    };
    if (spec.local && command.opts<LocalFlags>().local) {
      // Loaded only for --local (its cursor digest needs node:crypto, which a start-up should not pay).
      const [{ localWalkPlan }, { runLocalWalk }] = await Promise.all([import('./local-plan.js'), import('../run/local-walk.js')]);
      const { plan, local } = localWalkPlan(command, spec.mode, spec.endpoint, ctx.io, line, new Date());
      return withPager(ctx, plan.connection, globals.pager && !plan.output.file, () => runLocalWalk(plan, local, { io: ctx.io, signal: ctx.signal, fs: ctx.fs }));
    }
    // The local-only filters are on the command for --local; tenderBody refuses them without it.
    const flags = spec.local ? (localFilterFlags(command) as PagedFlags<F>) : command.opts<PagedFlags<F>>();
    const plan = walkPlan(spec, flags, globals, id, ctx, line);
    // The walk loads only when it runs: --dry-run needs the first requests alone.
    const walk = async (deps: RunDeps) => (await import('../run/walk.js')).runWalk(plan, deps);
    await withPager(ctx, plan.connection, globals.pager && !plan.output.file, () =>
      withClient(ctx, plan.connection, walk, () => firstRequests(plan.query, plan.cursor, plan.parallel)),
    ).catch((err: unknown) => {
      // At a path of the user's own (--path, the variable) a 404 more likely says the path is wrong.
      const atDefault = plan.query.path === endpointPath({ ...spec.endpoint, envName: undefined }, ctx.io.env, undefined, id);
      if (spec.notFound && atDefault && err instanceof ServiceError && err.status === 404) err.message += `: ${spec.notFound}`;
      throw err;
    });
  });
  return cmd;
}

/** Flags → the plan of one walk. */
export function walkPlan<F>(
  spec: PagedCommandSpec<F>,
  flags: PagedFlags<F>,
  globals: GlobalFlags,
  id: string | undefined,
  ctx: Pick<CommandContext, 'io'>,
  line: { name: string; argv: readonly string[]; invocation?: readonly string[] } = { name: spec.name, argv: [] },
): WalkPlan {
  const connection = connectionPlan(globals, ctx.io);
  const max = parseMax(flags);
  // A walk to the end (--all) asks for the largest pages, as exports do: fewer round trips.
  const pageSize = max !== undefined ? Math.min(max, spec.pageSize ?? PAGE_SIZE_MAX, PAGE_SIZE_MAX) : flags.all ? PAGE_SIZE_MAX : spec.pageSize;
  const path = endpointPath(spec.endpoint, ctx.io.env, flags.path, id);
  const exporting = spec.mode === 'export';
  const defaultFormat: Format = exporting ? 'csv' : interactiveFormat(ctx.io, outputFile(flags));
  if (exporting && flags.cursor !== undefined) {
    throw new UsageError('export always fetches every page from the first: to start from a cursor, use search --cursor CURSOR --all (to continue a stopped export, export -o FILE --resume)');
  }
  if (exporting && flags.all) throw new UsageError('export always fetches every page: leave out --all');
  const parallel = parseParallel(flags.parallel);
  if (parallel > 1 && flags.cursor !== undefined) throw new UsageError('--cursor continues one cursor chain: leave out --parallel');
  if (parallel > 1 && !exporting && !flags.all && max === undefined) {
    throw new UsageError('--parallel walks every page of each chain: use it with --all or --max');
  }
  const body = spec.body(flags, pageSize);
  const sortPaths = parseSortPaths(flags.sortPath, ctx.io.env);
  return {
    connection,
    query: { path, body, noun: spec.endpoint.noun, fieldsCommand: spec.endpoint.fieldsCommand },
    cursor: flags.cursor,
    shown: parseShown(flags),
    all: exporting || Boolean(flags.all),
    max,
    hints: !exporting,
    // Worked out when a hint prints it: a dry run never does.
    get nextPageCommand() {
      return exporting ? undefined : nextPageCommand(line);
    },
    resumable: exporting,
    parallel,
    sortPaths,
    receipt: flags.receipt !== undefined ? receiptPlan(flags.receipt, line) : undefined,
    output: {
      ...outputPlan(flags, defaultFormat),
      defaultColumns: spec.endpoint.columns,
      sortColumn: sortedBy(spec.endpoint, body, sortPaths),
      filterColumns: filteredColumns(flags),
      cpvPaths: cpvPathsPlan(globals, ctx.io.env),
    },
  };
}

/** The field a table of the results is sorted by, to keep in view. */
function sortedBy(endpoint: Endpoint, body: Record<string, unknown>, paths: SortPaths): string | undefined {
  return endpoint.sortable ? new ResultOrder(body, paths).path : undefined;
}

/** The command's name under the root: "export", "orgs tenders". */
export function commandName(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
