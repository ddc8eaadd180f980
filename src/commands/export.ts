import type { Command } from 'commander';
import { PAGE_SIZE_MAX, TENDERS } from '../query/endpoints.js';
import { tenderBody } from '../query/tender-body.js';
import { addTenderFilters, type TenderFilterFlags } from './flags.js';
import type { CommandContext } from './context.js';
import { registerPaged, type PagedCommandSpec } from './paged-command.js';

export const exportSpec: PagedCommandSpec<TenderFilterFlags> = {
  name: 'export',
  summary: 'stream every matching tender as CSV, NDJSON, Parquet, a calendar, a feed...',
  description:
    'Export every matching tender, page after page, streamed as it arrives. With -o FILE the file appears only ' +
    'when the export is complete; an interrupted export continues with --resume.',
  examples: [
    'tenders export --country FRA,ITA --format csv | csvsql --query "select count(*) from stdin"',
    'tenders export --status open --format ndjson | jq -r .buyer.name | sort | uniq -c',
    'tenders export -o /data/open-tenders.csv --status open          # atomic, for cron',
    'tenders export -o /data/open-tenders.csv --status open --resume # continue after a failure',
    'tenders export -c DEU --columns id,title,deadline --excel-safe -o deu.csv',
    'tenders export -c DEU,FRA,ITA --sort deadline --parallel 3 -o eu.csv --receipt eu.receipt.json',
    'tenders export --local --since 2026-03-01 --until 2026-03-31 --min-value 1e6 -o march.csv',
  ],
  endpoint: TENDERS,
  filters: addTenderFilters,
  body: tenderBody,
  mode: 'export',
  partitionable: true,
  local: true,
  // Exports ask for the largest page the service allows: fewer round trips.
  pageSize: PAGE_SIZE_MAX,
};

export const registerExport = (root: Command, ctx: CommandContext): Command => registerPaged(root, exportSpec, ctx);
