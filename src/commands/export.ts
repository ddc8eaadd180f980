import type { Command } from 'commander';
import { tenderBody, type TenderFilterFlags } from '../query/tender-body.js';
import { TENDER_COLUMNS, TENDERS_PATH, type CommandContext } from './context.js';
import {
  addOutputOptions,
  addTenderFilterOptions,
  connectionPlan,
  examples,
  outputPlan,
  pageSizeFor,
  parseMax,
  type GlobalFlags,
  type OutputFlags,
} from './options.js';

/** Exports ask for the largest page the service allows: fewer round trips. */
const EXPORT_PAGE_SIZE = 100;

export function registerExport(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('export')
    .summary('stream every matching tender as CSV, NDJSON or JSON')
    .description(
      'Export every matching tender, page after page, streamed as it arrives. With -o FILE the file appears only ' +
        'when the export is complete; an interrupted export continues with --resume.',
    );
  addTenderFilterOptions(cmd);
  addOutputOptions(cmd, 'csv|ndjson|json|table (default: csv)');
  cmd.option('--resume', 'with -o: continue an interrupted export of the same query');
  cmd.addHelpText(
    'after',
    examples([
      'tenders export --country FRA,ITA --format csv | csvsql --query "select count(*) from stdin"',
      'tenders export --status open --format ndjson | jq -r .buyer.name | sort | uniq -c',
      'tenders export -o /data/open-tenders.csv --status open          # atomic, for cron',
      'tenders export -o /data/open-tenders.csv --status open --resume # continue after a failure',
      'tenders export -c DEU --columns id,title,deadline --excel-safe -o deu.csv',
    ]),
  );
  cmd.action(async (flags: TenderFilterFlags & OutputFlags, command: Command) => {
    const connection = connectionPlan(command.optsWithGlobals<GlobalFlags>());
    const max = parseMax(flags);
    const body = tenderBody(flags, pageSizeFor(max, EXPORT_PAGE_SIZE));
    const output = { ...outputPlan(flags, 'csv'), defaultColumns: TENDER_COLUMNS };
    const { runWalk } = await import('../run/walk.js');
    await runWalk(
      {
        connection,
        query: { path: TENDERS_PATH, body, noun: 'tenders' },
        all: true,
        max,
        hints: false,
        resumable: true,
        output,
      },
      ctx.signal,
    );
  });
}
