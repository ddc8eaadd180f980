import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { orgBody, orgPath, type OrgFilterFlags } from '../query/org-body.js';
import { tenderBody, type TenderFilterFlags } from '../query/tender-body.js';
import { TENDER_COLUMNS, type CommandContext } from './context.js';
import { addOutputOptions, addTenderFilterOptions, collect, examples } from './options.js';
import { runWalkCommand, type WalkFlags } from './walk-action.js';

// Not in the spec: documented assumptions, each overridable for services that differ.
export const ORGS_SEARCH_PATH = '/api/v1/organisations/search';
export const ORG_TENDERS_PATH = '/api/v1/organisations/{id}/tenders/search';
const ORG_COLUMNS = ['id', 'name', 'country', 'tenderCount'];

type PathFlag = { path?: string };

function addPagingOptions(cmd: Command, envName: string, fallback: string): Command {
  cmd
    .option('--path <template>', `API path of this operation (env ${envName}; default ${fallback})`)
    .option('--cursor <cursor>', 'start from this page')
    .option('--all', 'follow nextCursor to the last page');
  return addOutputOptions(cmd, 'table|csv|ndjson|json (default: table on a terminal, else ndjson)');
}

function pathFrom(flags: PathFlag, envName: string, fallback: string): string {
  const path = flags.path ?? process.env[envName] ?? fallback;
  if (!path.startsWith('/')) throw new UsageError(`the API path must start with '/', not '${path}'`);
  return path;
}

export function registerOrgs(program: Command, ctx: CommandContext): void {
  const orgs = program.command('orgs').summary('organisations: search them, list their tenders');

  const search = orgs
    .command('search')
    .summary('search organisations (buyers)')
    .description(`Search organisations, paged like tender search. POST ${ORGS_SEARCH_PATH} with "query" and "countries".`)
    .option('--query <text>', 'text to look for in organisation names')
    .option('-c, --country <codes>', 'country codes, three letters (repeatable, comma-separated)', collect)
    .option('-n, --limit <n>', 'results per page, 1-100')
    .option('--filter <key=value>', 'extra request field; VALUE is parsed as JSON when valid (repeatable)', collect);
  addPagingOptions(search, 'TENDERS_ORGS_SEARCH_PATH', ORGS_SEARCH_PATH).addHelpText(
    'after',
    examples([
      'tenders orgs search --query hospital --country DEU,AUT',
      'tenders orgs search --country GRC --all --format csv -o greek-buyers.csv',
      'tenders orgs search --query stadt --max 500 -f ndjson | jq -r .id',
    ]),
  );
  search.action((flags: OrgFilterFlags & WalkFlags & PathFlag, command: Command) =>
    runWalkCommand(
      command,
      ctx,
      flags,
      'search',
      (limit) => ({
        path: pathFrom(flags, 'TENDERS_ORGS_SEARCH_PATH', ORGS_SEARCH_PATH),
        body: orgBody(flags, limit),
        noun: 'organisations',
      }),
      ORG_COLUMNS,
    ),
  );

  const tenders = orgs
    .command('tenders')
    .summary("an organisation's tenders, filtered and sorted like search")
    .description(`List one organisation's tenders. POST ${ORG_TENDERS_PATH} with the Search Tenders body.`)
    .argument('<ORG_ID>', 'the organisation id, as orgs search shows it');
  addTenderFilterOptions(tenders);
  addPagingOptions(tenders, 'TENDERS_ORG_TENDERS_PATH', ORG_TENDERS_PATH).addHelpText(
    'after',
    examples([
      'tenders orgs tenders ORG-DEU-0007 --status open --sort deadline',
      'tenders orgs tenders ORG-FRA-0012 --sort estimatedValue --all -f csv -o org.csv',
    ]),
  );
  tenders.action((orgId: string, flags: TenderFilterFlags & WalkFlags & PathFlag, command: Command) =>
    runWalkCommand(
      command,
      ctx,
      flags,
      'search',
      (limit) => ({
        path: orgPath(pathFrom(flags, 'TENDERS_ORG_TENDERS_PATH', ORG_TENDERS_PATH), orgId),
        body: tenderBody(flags, limit),
        noun: 'tenders',
      }),
      TENDER_COLUMNS,
    ),
  );
}
