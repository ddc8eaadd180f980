import { Option, type Command } from 'commander';
import { UsageError } from '../errors.js';
import { checkListOrForget, listOrForget } from './saved-list.js';
import type { Env, IO } from '../io.js';
import { wrapWords } from '../output/terminal/wrap.js';
import { endpointPath, ORG_TENDERS, PAGE_SIZE_MAX, TENDERS } from '../query/endpoints.js';
import { savedQueryBody } from '../query/tender-body.js';
import { selectsTenders } from '../query/tender-filters.js';
import { parseSortPaths } from '../query/sort-paths.js';
import { parseInteger, parseLimit } from '../query/validate.js';
import type { WatchPlan } from '../run/plan.js';
import { parseWatchName, tempDir, watchDir } from '../run/watch/location.js';
import { storeTarget, type StoreTarget } from '../store/location.js';
import { isPostgresLocation } from '../store/store.js';
import { parseWebhook, redactWebhook, webhooksFromEnv } from '../run/watch/webhook-url.js';
import { withClient, type CommandContext } from './context.js';
import {
  addOutputFlags,
  addTenderFilters,
  examples,
  parallelOption,
  receiptOption,
  sortPathOption,
  type GlobalFlags,
  type OutputFlags,
  type TenderFilterFlags,
} from './flags.js';
import { connectionPlan, cpvPathsPlan, interactiveFormat, outputFile, outputPlan, parseParallel, receiptPlan } from './flag-plans.js';
import { savedServiceFirst } from './settings.js';

export interface WatchFlags extends TenderFilterFlags, OutputFlags {
  org?: string;
  parallel?: string;
  sortPath?: string[];
  receipt?: string;
  newOnly?: boolean;
  initial: 'none' | 'all';
  reset?: boolean;
  list?: boolean;
  forget?: boolean;
  webhook?: string[];
  webhookChanges: string;
  feed?: string;
  feedSize: string;
  db?: string;
}

export function registerWatch(program: Command, ctx: CommandContext): Command {
  const cmd = program
    .command('watch')
    .summary('print what is new, changed or gone since the last run of a saved search')
    .description(
      'Watch a saved search: the first run of NAME saves its filters and records what matches (a baseline); ' +
        'every later run prints one row per tender that is new, changed (with the fields that changed) or gone, ' +
        'and nothing when nothing changed. The state moves forward only once the output was delivered.',
    )
    .argument('[NAME]', 'the watch: letters, digits, -, _ and . (not first)');
  addTenderFilters(cmd);
  cmd
    .option('--org <id>', "watch an organisation's tenders (as orgs tenders) instead of the tender search")
    .option('--new-only', 'report only new tenders; in the default order, page only as far as they go')
    .addOption(new Option('--initial <what>', 'what the first run prints: none (a silent baseline) or all (every tender as new)').choices(['none', 'all']).default('none'))
    .option('--reset', 'replace the saved filters (if given) and record a new baseline')
    .option('--list', 'list the saved watches: name, query, last run, tenders known')
    .option('--forget', 'delete the watch NAME');
  addOutputFlags(cmd, 'table on a terminal, else ndjson', { max: false, tenders: true });
  cmd
    .option(
      '--webhook <url>',
      'after a run with changes, POST them as JSON with a one-paragraph text (Slack, Mattermost, Teams); repeatable; default $TENDERS_WEBHOOK',
      (url: string, urls: string[] = []) => [...urls, url],
    )
    .option('--webhook-changes <n>', 'the changes a webhook document holds at most (the text counts the rest); 0: the text and counts only', '25')
    .option('--feed <file>', 'keep FILE as a rolling Atom feed of the changes: each run adds its changes, the newest --feed-size kept')
    .option('--feed-size <n>', 'the entries --feed keeps', '200');
  cmd.addOption(parallelOption()).addOption(sortPathOption()).addOption(receiptOption());
  cmd.addOption(
    new Option('--db <url>', "keep the watch's state in this PostgreSQL copy, shared by a team (env TENDERS_DB, when it names one)"),
  );
  cmd.addHelpText(
    'after',
    examples([
      'tenders watch deu-open -c DEU -s open            # first run: saves the query, records a baseline',
      'tenders watch deu-open                           # later: new, changed and gone tenders',
      'tenders watch deu-open --new-only -f csv         # only new ones, paging only as far as they go',
      'tenders watch big-buyer --org ORG-DEU-0007 --initial all',
      'tenders watch deu-open -c DEU,AUT -s open --reset # follow other filters from a new baseline',
      '# after each run with changes, a message in a Slack channel',
      'tenders watch deu-open --webhook https://hooks.slack.com/services/T000/B000/XXXX',
      '# a feed for a reader, served by a web server',
      'tenders watch deu-open -q --feed /var/www/feeds/deu-open.atom',
      'tenders watch --list',
      'tenders watch deu-open --forget',
    ], `\n${wrapWords('State: --db postgres://... (or TENDERS_DB naming one), else $TENDERS_STATE_DIR, else $XDG_STATE_HOME/tenders/watches, else ~/.local/state/tenders/watches.', 80).join('\n')}\n`),
  );
  cmd.action(async (name: string | undefined, flags: WatchFlags, command: Command) => {
    const globals = command.optsWithGlobals<GlobalFlags>();
    if (flags.list || flags.forget) {
      checkAlone(name, flags, Boolean(globals.dryRun));
      const { db, dir } = statePlace(flags.db, ctx.io.env);
      const forgotten = name === undefined ? undefined : parseWatchName(name);
      if (db) {
        const { runCopyWatchForget, runCopyWatchList } = await import('../run/watch/postgres-list.js');
        return listOrForget(ctx, flags, globals, {
          list: (plan, say) => runCopyWatchList(db, dir, plan, ctx.io, ctx.signal, say, ctx.fs),
          forget: (say) => runCopyWatchForget(db, dir, forgotten!, say, ctx.fs),
        });
      }
      const { runWatchForget, runWatchList } = await import('../run/watch/list.js');
      return listOrForget(ctx, flags, globals, {
        list: (plan, say) => runWatchList(dir!, plan, ctx.io, ctx.signal, say, ctx.fs),
        forget: (say) => runWatchForget(dir!, forgotten!, say, ctx.fs),
      });
    }
    const settled = await savedServiceFirst(command, globals, ctx.io, `watch ${name}`, async () =>
      name === undefined
        ? undefined
        : (await import('../run/watch/run.js')).savedWatchService({ name: parseWatchName(name), ...statePlace(flags.db, ctx.io.env), reset: Boolean(flags.reset) }),
    );
    const plan = watchPlan(name, flags, settled, ctx.io, ctx.argv);
    const { runWatch, watchFirstRequests } = await import('../run/watch/run.js');
    // Not through a pager: the changes come at the end of a walk, which a spinner shows meanwhile.
    await withClient(ctx, plan.connection, (deps) => runWatch(plan, deps), () => watchFirstRequests(plan));
  });
  return cmd;
}

const filtersGiven = (flags: WatchFlags) => selectsTenders(flags) || flags.org !== undefined;

/** --list takes no NAME and no filters; --forget takes NAME alone. */
function checkAlone(name: string | undefined, flags: WatchFlags, dryRun: boolean): void {
  const given = filtersGiven(flags) || flags.limit !== undefined || Boolean(flags.reset || flags.newOnly || flags.parallel || flags.receipt || flags.webhook || flags.feed);
  checkListOrForget('watch', name, flags, { given, names: '--reset, --new-only, --parallel, --receipt, --webhook or --feed', dryRun });
}

/** The command line as a receipt records it: each --webhook URL as scheme://host/… only (its path and query are its secret). */
function withoutSecrets(argv: readonly string[], webhooks: readonly string[]): string[] {
  const shown = (url: string) => (URL.canParse(url) ? redactWebhook(new URL(url)) : '…');
  return argv.map((arg) => {
    const hook = webhooks.find((url) => arg === url || arg === `--webhook=${url}`);
    return hook === undefined ? arg : arg.replace(hook, shown(hook));
  });
}

/**
 * Where watches keep their state: a PostgreSQL copy that --db or TENDERS_DB
 * names (and the state directory, if any, whose files its runs move in),
 * else files in the state directory. A SQLite copy holds no watches: --db
 * naming one is a usage error, TENDERS_DB naming one is the sync's business.
 */
function statePlace(flag: string | undefined, env: Env): { db?: StoreTarget; dir?: string } {
  if (flag !== undefined && !isPostgresLocation(flag)) {
    throw new UsageError(`watch --db names a PostgreSQL copy (postgres://...) to keep watches in; a watch's state is otherwise a file (TENDERS_STATE_DIR), not a SQLite copy`);
  }
  const location = flag ?? env.TENDERS_DB;
  if (location === undefined || !isPostgresLocation(location)) return { dir: watchDir(env) };
  let dir: string | undefined;
  try {
    dir = watchDir(env);
  } catch {
    dir = undefined; // no state directory: no file to move in
  }
  return { db: storeTarget(location, env), dir };
}

/** Flags → the plan of one watch run, checked before any request (UsageError: exit 2). */
export function watchPlan(name: string | undefined, flags: WatchFlags, globals: GlobalFlags, io: IO, argv: readonly string[] = []): WatchPlan {
  if (name === undefined) throw new UsageError("watch needs a NAME: tenders watch NAME [filters] (or 'tenders watch --list')");
  const pathFor = (org: string | null) => (org === null ? endpointPath(TENDERS, io.env) : endpointPath(ORG_TENDERS, io.env, undefined, org));
  let query: WatchPlan['query'];
  if (filtersGiven(flags)) {
    query = { org: flags.org ?? null, body: savedQueryBody(flags) };
    pathFor(query.org); // a bad --org or path template is a usage error now, not after the lock
  }
  return {
    name: parseWatchName(name),
    ...statePlace(flags.db, io.env),
    tempDir: tempDir(io.env),
    connection: connectionPlan(globals, io),
    query,
    pathFor,
    limit: flags.limit !== undefined ? parseLimit(flags.limit) : PAGE_SIZE_MAX,
    newOnly: Boolean(flags.newOnly),
    initial: flags.initial,
    reset: Boolean(flags.reset),
    parallel: parseParallel(flags.parallel),
    sortPaths: parseSortPaths(flags.sortPath, io.env),
    receipt: flags.receipt !== undefined ? receiptPlan(flags.receipt, { name: 'watch', argv: withoutSecrets(argv, flags.webhook ?? []) }) : undefined,
    output: { ...outputPlan(flags, interactiveFormat(io, outputFile(flags))), defaultColumns: TENDERS.columns, cpvPaths: cpvPathsPlan(globals, io.env) },
    // --webhook replaces TENDERS_WEBHOOK, as flags win over the environment.
    webhooks: flags.webhook ? flags.webhook.map((url) => parseWebhook(url)) : webhooksFromEnv(io.env.TENDERS_WEBHOOK).map((url) => parseWebhook(url, 'TENDERS_WEBHOOK')),
    webhookChanges: parseInteger('--webhook-changes', flags.webhookChanges, 0, 1000),
    feed: flags.feed,
    feedSize: parseInteger('--feed-size', flags.feedSize, 1, 100_000),
  };
}
