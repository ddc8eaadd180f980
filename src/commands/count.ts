import { Option, type Command } from 'commander';
import { UsageError } from '../errors.js';
import { countFormat, countFormats, type CountFormat } from '../output/counts.js';
import { TENDERS, endpointPath } from '../query/endpoints.js';
import { tenderBody, type TenderFilterFlags } from '../query/tender-body.js';
import { createReporter } from '../output/terminal/reporter.js';
import { CPV_LEVELS, parseCpvLevel } from '../query/local-values.js';
import { tenderFilter } from '../query/tender-filters.js';
import { DIMENSIONS, EVERY_VALUE, partitionBy, type Dimension } from '../run/partition.js';
import { openChoices } from './choices.js';
import { withClient, type CommandContext } from './context.js';
import { addLocalFilters, addTenderFilters, dbOption, examples, localFilterFlags, localOption, type GlobalFlags } from './flags.js';
import type { LocalFlags } from './local-plan.js';
import { connectionPlan, parseParallel } from './flag-plans.js';

/** Counts at once when every country is counted and --parallel is not given. */
const EVERY_COUNTRY_PARALLEL = 4;

/** count's --parallel: how many partitions are counted at once (no chains, no merge, unlike the walks' flag). */
function parallelCounts(): Option {
  const option = new Option('--parallel <n>', 'with --by: how many counts are requested at once (1-16)');
  option.defaultValueDescription = `1; ${EVERY_COUNTRY_PARALLEL} for every country`;
  return option;
}

/** "-c DEU,FRA,ITA": a dimension's flag with an example value, from the filter table. */
function exampleFlag(by: Dimension): string {
  const row = tenderFilter(by);
  return `${row.short ?? row.flag} ${row.example}`;
}

type CountFlags = TenderFilterFlags & LocalFlags & { format: CountFormat; by?: string; parallel?: string; cpvLevel?: string };

/** The field --by names to count per CPV code (the store reads every code of a tender, model/cpv.ts). */
const BY_CPV = 'cpv';

/** --by: online a dimension (country, status); with --local any dot path. Offered as choices, checked here. */
function byOption(): Option {
  const option = new Option(
    '--by <field>',
    'one count per country given with -c (every country without -c), or per status given with -s; with --local, per value of any field (buyer.name), or per CPV code (cpv)',
  );
  // The dimensions in any case, as every choice; a dot path as given (checked by dimension() or the store).
  const dimensions = Object.keys(DIMENSIONS);
  return openChoices(option, dimensions, (value) => dimensions.find((choice) => choice === value.trim().toLowerCase()) ?? value);
}

function dimension(by: string): Dimension {
  if (by in DIMENSIONS) return by as Dimension;
  throw new UsageError(`count --by ${by}: the service counts per ${Object.keys(DIMENSIONS).join(' or ')}; add --local to count any field of the local copy tenders sync keeps`);
}

export function registerCount(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('count')
    .summary('print how many tenders match (per country or status with --by)')
    .description(
      'Print the number of matching tenders from the first page\'s page.total; "10000+" when the service stops counting. ' +
        'With --by, one count per country (or status) given and their sum; --by country without --country counts every country ' +
        '(ISO 3166-1) and prints those with matches. A part capped at 10 000 is split further (by status, or by country) ' +
        'until exact; what stays capped is a lower bound, said on stderr.',
    );
  addTenderFilters(cmd);
  addLocalFilters(cmd);
  cmd
    .addOption(localOption())
    .addOption(dbOption())
    .addOption(byOption())
    .addOption(parallelCounts())
    .addOption(
      new Option('--cpv-level <n>', 'with --local --by cpv: count per division (2), group (3), class (4), category (5) or code (8), a tender once per group').choices(
        Object.keys(CPV_LEVELS),
      ),
    )
    .addOption(
      new Option('-f, --format <format>', `text; json: {"count":N,"capped":B}; with --by also ${countFormats().byOnly.join(', ')}`)
        .choices(countFormats().all)
        .default('text'),
    );
  cmd.addHelpText(
    'after',
    examples([
      'tenders count --country DEU --status open',
      'tenders count -c FRA,ITA --format json | jq .count',
      'tenders count -c DEU,FRA,ITA,ESP,POL --by country --parallel 4',
      'tenders count -s open --by country              # every country with open tenders',
      'tenders count -s open,closed,awarded --by status -f csv',
      'tenders count --local --by buyer.name -c DEU,AUT -s open',
      'tenders count --local hospital cleaning --deadline-after now',
      'tenders count --local --by cpv --cpv-level 2      # per CPV division, with names',
    ]),
  );
  cmd.action(async (_words: unknown, flags: CountFlags, command: Command) => {
    if (flags.local) return countLocal(command, flags, ctx);
    if (flags.cpvLevel !== undefined) throw new UsageError('--cpv-level groups the counts of count --local --by cpv: add --local --by cpv');
    flags = localFilterFlags(command) as CountFlags;
    const connection = connectionPlan(command.optsWithGlobals<GlobalFlags>(), ctx.io);
    const query = { path: endpointPath(TENDERS, ctx.io.env), body: tenderBody(flags), noun: TENDERS.noun };
    const { format } = flags;
    const by = flags.by === undefined ? undefined : dimension(flags.by);
    if (!by) {
      const { total } = countFormat(format);
      if (!total) throw new UsageError(`count --format ${format} is for one count per part: add --by country or --by status`);
      const { runCount, countRequest } = await import('../run/count.js');
      return withClient(ctx, connection, (deps) => runCount(query, total, deps), () => [countRequest(query.path, query.body)]);
    }
    const everyCountry = by === 'country' && query.body[DIMENSIONS.country] === undefined;
    const partitions = everyCountry ? partitionBy({ ...query.body, [DIMENSIONS.country]: EVERY_VALUE.country }, by) : partitionBy(query.body, by);
    if (partitions.length === 0) throw new UsageError(`count --by ${by} counts each ${by} you name: list them, e.g. ${exampleFlag(by)}`);
    const parallel = flags.parallel === undefined && everyCountry ? EVERY_COUNTRY_PARALLEL : parseParallel(flags.parallel);
    const say = createReporter(ctx.io, connection);
    const { runCountBy, countRequest } = await import('../run/count.js');
    await withClient(
      ctx,
      connection,
      (deps) => runCountBy(query, by, partitions, { format, parallel, matchesOnly: everyCountry }, deps, say),
      () => partitions.map((partition) => countRequest(query.path, partition.body)),
    );
  });
}

/** count --local: exact counts from the copy, every value of any field, no ceiling. */
async function countLocal(command: Command, flags: CountFlags, ctx: CommandContext): Promise<void> {
  if (flags.cpvLevel !== undefined && flags.by !== BY_CPV) throw new UsageError(`--cpv-level groups the counts per CPV code: add --by ${BY_CPV}`);
  const cpvLevel = flags.cpvLevel === undefined ? undefined : parseCpvLevel(flags.cpvLevel);
  const { localQuery } = await import('./local-plan.js');
  const { selection, db } = localQuery(command, ctx.io, new Date());
  const { format, by } = flags;
  if (!by && !countFormat(format).total) throw new UsageError(`count --format ${format} is for one count per value: add --by FIELD`);
  const { runLocalCount } = await import('../run/local-count.js');
  await runLocalCount({ db, selection, by, format, ...(cpvLevel !== undefined ? { cpvLevel } : {}) }, { io: ctx.io, signal: ctx.signal });
}
