import type { Command } from 'commander';
import { tenderBody, type TenderFilterFlags } from '../query/tender-body.js';
import { TENDER_COLUMNS, TENDERS_PATH, type CommandContext } from './context.js';
import { addOutputOptions, addTenderFilterOptions, examples } from './options.js';
import { runWalkCommand, type WalkFlags } from './walk-action.js';

type SearchFlags = TenderFilterFlags & WalkFlags;

export function registerSearch(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('search')
    .summary('show a page of matching tenders (or more with --all / --max)')
    .description('Search tenders and print one page of results; --all follows the cursor to the end, --max N stops after N.');
  addTenderFilterOptions(cmd);
  cmd.option('--cursor <cursor>', 'start from this page (from a previous "Next page" hint)');
  cmd.option('--all', 'follow nextCursor to the last page');
  addOutputOptions(cmd, 'table|csv|ndjson|json (default: table on a terminal, else ndjson)');
  cmd.addHelpText(
    'after',
    examples([
      'tenders search --country DEU --status open --sort deadline',
      'tenders search -c FRA,ITA --sort estimatedValue --order desc -n 50',
      'tenders search --status open --cursor eyJ2Ijo... # the next page',
      'tenders search --country POL --all --format csv --columns id,title,buyer.name > pol.csv',
      "tenders search --filter query=bridge --filter minValue=1000000 --max 200 | jq -r .title",
    ]),
  );
  cmd.action((flags: SearchFlags, command: Command) =>
    runWalkCommand(command, ctx, flags, 'search', (limit) => ({ path: TENDERS_PATH, body: tenderBody(flags, limit), noun: 'tenders' }), TENDER_COLUMNS),
  );
}
