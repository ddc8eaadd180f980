import type { Command } from 'commander';
import { ORG_TENDERS, ORGS_SEARCH } from '../query/endpoints.js';
import { orgBody } from '../query/org-body.js';
import { tenderBody } from '../query/tender-body.js';
import { addOrgFilters, addTenderFilters, examples, type OrgFilterFlags, type TenderFilterFlags } from './flags.js';
import type { CommandContext } from './context.js';
import { orgFieldsSpec, registerFields } from './fields.js';
import { registerPaged, type PagedCommandSpec } from './paged-command.js';

export const orgsSearchSpec: PagedCommandSpec<OrgFilterFlags> = {
  name: 'search',
  summary: 'search organisations (buyers)',
  description: `Search organisations, paged like tender search. POST ${ORGS_SEARCH.path} with "query" and "countries".`,
  examples: [
    'tenders orgs search --query hospital --country DEU,AUT',
    'tenders orgs search --country GRC --all --format csv -o greek-buyers.csv',
    'tenders orgs search --query stadt --max 500 -f ndjson | jq -r .id',
  ],
  endpoint: ORGS_SEARCH,
  filters: addOrgFilters,
  body: orgBody,
  mode: 'search',
  pathFlag: true,
};

export const orgTendersSpec: PagedCommandSpec<TenderFilterFlags> = {
  name: 'tenders',
  summary: "an organisation's tenders, filtered and sorted like search",
  description: `List one organisation's tenders. POST ${ORG_TENDERS.path} with the Search Tenders body.`,
  examples: [
    'tenders orgs tenders ORG-DEU-0007 --status open --sort deadline',
    'tenders orgs tenders ORG-FRA-0012 --sort estimatedValue --all -f csv -o org.csv',
  ],
  argument: { name: 'ORG_ID', description: 'the organisation id, as orgs search shows it' },
  notFound: "is the organisation id right? find ids with 'tenders orgs search --query NAME'",
  endpoint: ORG_TENDERS,
  filters: addTenderFilters,
  body: tenderBody,
  mode: 'search',
  pathFlag: true,
  partitionable: true,
};

/** The `orgs` group and its commands: search, tenders, fields. */
export function registerOrgs(program: Command, ctx: CommandContext): Command {
  const orgs = program
    .command('orgs')
    .summary('organisations: search them, list their tenders')
    .description(
      'Organisations are the buyers that publish tenders. Find them by name and country with orgs search, ' +
        "then list one's tenders with orgs tenders ORG_ID (the filters, sorting and paging of tenders search). " +
        'Their operations are not in the service spec: see --path and the TENDERS_ORG* variables (tenders help environment).',
    )
    .addHelpText(
      'after',
      examples([
        'tenders orgs search --query hospital --country DEU,AUT',
        'tenders orgs tenders ORG-DEU-0007 --status open --sort deadline',
        'tenders orgs fields                 # the fields organisations have, for --columns',
        'tenders help orgs tenders           # the flags of one command',
      ]),
    );
  registerPaged(orgs, orgsSearchSpec, ctx);
  registerPaged(orgs, orgTendersSpec, ctx);
  registerFields(orgs, orgFieldsSpec, ctx);
  return orgs;
}
