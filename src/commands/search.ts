import type { Command } from 'commander';
import { TENDERS } from '../query/endpoints.js';
import { tenderBody } from '../query/tender-body.js';
import { addTenderFilters, type TenderFilterFlags } from './flags.js';
import type { CommandContext } from './context.js';
import { registerPaged, type PagedCommandSpec } from './paged-command.js';

export const searchSpec: PagedCommandSpec<TenderFilterFlags> = {
  name: 'search',
  summary: 'show a page of matching tenders (or more with --all / --max)',
  description: 'Search tenders and print one page of results; --all follows the cursor to the end, --max N stops after N.',
  examples: [
    'tenders search --country DEU --status open --sort deadline',
    'tenders search -c FRA,ITA --sort estimatedValue --order desc -n 50',
    'tenders search --status open --cursor eyJ2Ijo... # the next page',
    'tenders search --country POL --all --format csv --columns id,title,buyer.name > pol.csv',
    'tenders search --filter query=bridge --filter minValue=1000000 --max 200 | jq -r .title',
    'tenders search --local hospital cleaning --deadline-after now   # the copy tenders sync keeps',
  ],
  endpoint: TENDERS,
  filters: addTenderFilters,
  body: tenderBody,
  mode: 'search',
  partitionable: true,
  local: true,
};

export const registerSearch = (root: Command, ctx: CommandContext): Command => registerPaged(root, searchSpec, ctx);
