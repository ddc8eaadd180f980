import type { Command } from 'commander';
import { tenderBody, type TenderFilterFlags } from '../query/tender-body.js';
import type { CommandContext } from './context.js';
import { TENDER_COLUMNS, TENDERS_PATH } from './context.js';
import {
  addOutputOptions,
  addTenderFilterOptions,
  connectionPlan,
  examples,
  interactiveFormat,
  outputPlan,
  pageSizeFor,
  parseMax,
  type GlobalFlags,
  type OutputFlags,
} from './options.js';

type SearchFlags = TenderFilterFlags & OutputFlags & { all?: boolean; cursor?: string };

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
  cmd.action(async (flags: SearchFlags, command: Command) => {
    const connection = connectionPlan(command.optsWithGlobals<GlobalFlags>());
    const max = parseMax(flags);
    const body = tenderBody(flags, pageSizeFor(max, undefined));
    const output = { ...outputPlan(flags, interactiveFormat()), defaultColumns: TENDER_COLUMNS };
    const { runWalk } = await import('../run/walk.js');
    await runWalk(
      {
        connection,
        query: { path: TENDERS_PATH, body, noun: 'tenders' },
        cursor: flags.cursor,
        all: Boolean(flags.all),
        max,
        hints: true,
        resumable: false,
        output,
      },
      ctx.signal,
    );
  });
}
