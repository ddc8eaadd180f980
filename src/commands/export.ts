import type { Command } from 'commander';
import { tenderBody, type TenderFilterFlags } from '../query/tender-body.js';
import { TENDER_COLUMNS, TENDERS_PATH, type CommandContext } from './context.js';
import { addOutputOptions, addTenderFilterOptions, examples } from './options.js';
import { runWalkCommand, type WalkFlags } from './walk-action.js';

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
  cmd.action((flags: TenderFilterFlags & WalkFlags, command: Command) =>
    runWalkCommand(
      command,
      ctx,
      flags,
      'export',
      (limit) => ({ path: TENDERS_PATH, body: tenderBody(flags, limit), noun: 'tenders' }),
      TENDER_COLUMNS,
      EXPORT_PAGE_SIZE,
    ),
  );
}
