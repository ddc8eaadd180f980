import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { checkListOrForget, listOrForget } from './saved-list.js';
import type { IO } from '../io.js';
import { wrapWords } from '../output/terminal/wrap.js';
import { endpointPath, ORG_TENDERS, PAGE_SIZE_MAX, TENDERS } from '../query/endpoints.js';
import { savedQueryBody } from '../query/tender-body.js';
import { selectsTenders } from '../query/tender-filters.js';
import { parseSortPaths } from '../query/sort-paths.js';
import { parseLimit, parseSavedName } from '../query/validate.js';
import type { SyncPlan } from '../run/plan.js';
import { storeTarget } from '../store/location.js';
import { withClient, type CommandContext } from './context.js';
import {
  addOutputFlags,
  addTenderFilters,
  dbOption,
  examples,
  parallelOption,
  receiptOption,
  sortPathOption,
  type GlobalFlags,
  type OutputFlags,
  type TenderFilterFlags,
} from './flags.js';
import { connectionPlan, cpvPathsPlan, parseParallel, receiptPlan } from './flag-plans.js';
import { savedServiceFirst } from './settings.js';

export interface SyncFlags extends TenderFilterFlags, OutputFlags {
  org?: string;
  db?: string;
  parallel?: string;
  sortPath?: string[];
  receipt?: string;
  newOnly?: boolean;
  reset?: boolean;
  list?: boolean;
  forget?: boolean;
}

export function registerSync(program: Command, ctx: CommandContext): Command {
  const cmd = program
    .command('sync')
    .summary('keep a local copy of a saved search, with the history of its changes')
    .description(
      'Keep a local copy (SQLite, or PostgreSQL) of the tenders a saved search matches: the first run of NAME saves its ' +
        'filters and service and stores every tender (a baseline); every later run brings the copy up to date and records ' +
        'each new, changed (field, old and new value) and gone tender once, in one transaction: an interrupted run changes ' +
        'nothing. At a terminal it ends with one line (what changed, how many tenders, how long, where the copy is); into cron it is ' +
        'silent. Read the copy with search/export/count --local, tenders changes, or sqlite3.',
    )
    .argument('[NAME]', 'the sync: letters, digits, -, _ and . (not first)');
  addTenderFilters(cmd);
  cmd
    .option('--org <id>', "copy an organisation's tenders (as orgs tenders) instead of the tender search")
    .addOption(dbOption())
    .option('--new-only', 'record only new tenders; in the default order, page only as far as they go')
    .option('--reset', 'replace the saved filters or service (the tenders the sync holds are compared with the new query)')
    .option('--list', 'list the syncs of the copy: name, query, service, last run, tenders, complete')
    .option('--forget', 'delete the sync NAME and the tenders only it holds');
  addOutputFlags(cmd, 'with --list: table on a terminal, else ndjson', { max: false });
  cmd.addOption(parallelOption()).addOption(sortPathOption()).addOption(receiptOption());
  cmd.addHelpText(
    'after',
    examples([
      'tenders sync deu-open -c DEU -s open              # first run: saves the query, stores every tender',
      'tenders sync deu-open                             # later: brings the copy up to date, records the changes',
      'tenders sync deu-open                             # at a terminal ends with: sync deu-open: 3 new, 1 changed, 0 gone (...)',
      'tenders sync deu-open --new-only                  # only new tenders, paging only as far as they go',
      'tenders sync eu-open -c DEU,FRA,ITA -s open --parallel 3 --receipt sync.json',
      'tenders sync big-buyer --org ORG-DEU-0007 --db postgres://me@localhost/tenders',
      'tenders sync deu-open -c DEU,AUT -s open --reset  # follow other filters from now on',
      'tenders sync --list',
      'tenders sync deu-open --forget',
      '17 * * * * tenders sync deu-open                  # a crontab line: silent, exit 0 when all went well',
    ], `\n${wrapWords('The copy: --db, else $TENDERS_DB, else $XDG_DATA_HOME/tenders/tenders.db, else ~/.local/share/tenders/tenders.db.', 80).join('\n')}\n`),
  );
  cmd.action(async (name: string | undefined, flags: SyncFlags, command: Command) => {
    const globals = command.optsWithGlobals<GlobalFlags>();
    if (flags.list || flags.forget) {
      checkAlone(name, flags, Boolean(globals.dryRun));
      const db = storeTarget(flags.db, ctx.io.env);
      const { runSyncForget, runSyncList } = await import('../run/sync-list.js');
      return listOrForget(ctx, flags, globals, {
        list: (plan, say) => runSyncList(db, plan, ctx.io, ctx.signal, say, ctx.fs),
        forget: (say) => runSyncForget(db, parseSavedName('sync', name!), say, ctx.fs),
      });
    }
    const settled = await savedServiceFirst(command, globals, ctx.io, `sync ${name}`, async () =>
      name === undefined ? undefined : (await import('../run/sync.js')).savedSyncService(storeTarget(flags.db, ctx.io.env), parseSavedName('sync', name)),
    );
    const plan = syncPlan(name, flags, settled, ctx.io, ctx.argv);
    const { runSync, syncFirstRequests } = await import('../run/sync.js');
    await withClient(ctx, plan.connection, (deps) => runSync(plan, deps), () => syncFirstRequests(plan));
  });
  return cmd;
}

const filtersGiven = (flags: SyncFlags) => selectsTenders(flags) || flags.org !== undefined;

const OUTPUT_FLAGS: [keyof SyncFlags, string][] = [
  ['format', '-f'],
  ['output', '-o'],
  ['columns', '--columns'],
  ['excelSafe', '--excel-safe'],
];

/** --list takes no NAME and no filters; --forget takes NAME alone; the output flags are --list's. */
function checkAlone(name: string | undefined, flags: SyncFlags, dryRun: boolean): void {
  const given = filtersGiven(flags) || flags.limit !== undefined || Boolean(flags.reset || flags.newOnly || flags.parallel || flags.receipt);
  checkListOrForget('sync', name, flags, { given, names: '--reset, --new-only, --parallel or --receipt', dryRun });
  const output = OUTPUT_FLAGS.find(([key]) => flags[key] !== undefined);
  if (flags.forget && output) throw new UsageError(`${output[1]} is for --list: --forget prints nothing`);
}

/** Flags → the plan of one sync run, checked before any request (UsageError: exit 2). */
export function syncPlan(name: string | undefined, flags: SyncFlags, globals: GlobalFlags, io: IO, argv: readonly string[] = []): SyncPlan {
  if (name === undefined) throw new UsageError("sync needs a NAME: tenders sync NAME [filters] (or 'tenders sync --list')");
  const output = OUTPUT_FLAGS.find(([key]) => flags[key] !== undefined);
  if (output) throw new UsageError(`${output[1]} is for --list: a sync writes the local copy, read it with search/export --local`);
  const pathFor = (org: string | null) => (org === null ? endpointPath(TENDERS, io.env) : endpointPath(ORG_TENDERS, io.env, undefined, org));
  let query: SyncPlan['query'];
  if (filtersGiven(flags)) {
    query = { org: flags.org ?? null, body: savedQueryBody(flags) };
    pathFor(query.org); // a bad --org or path template is a usage error now, not after the store is opened
  }
  return {
    name: parseSavedName('sync', name),
    db: storeTarget(flags.db, io.env),
    connection: connectionPlan(globals, io),
    query,
    pathFor,
    limit: flags.limit !== undefined ? parseLimit(flags.limit) : PAGE_SIZE_MAX,
    newOnly: Boolean(flags.newOnly),
    reset: Boolean(flags.reset),
    parallel: parseParallel(flags.parallel),
    sortPaths: parseSortPaths(flags.sortPath, io.env),
    receipt: flags.receipt !== undefined ? receiptPlan(flags.receipt, { name: 'sync', argv }) : undefined,
    cpvPaths: cpvPathsPlan(globals, io.env),
  };
}
