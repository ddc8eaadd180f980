import { Option, type Command } from 'commander';
import { FORMATS, type Format } from '../output/formatter.js';
import { UsageError } from '../errors.js';
import { parseBaseUrl, parseColumns, parseInteger } from '../query/validate.js';
import type { ConnectionPlan, OutputPlan } from '../run/plan.js';

/** Flag definitions and their parsing, shared by the commands. */

export const collect = (value: string, previous: string[] = []) => [...previous, value];

export function addTenderFilterOptions(cmd: Command): Command {
  return cmd
    .option('-c, --country <codes>', 'buyer country codes, three letters (repeatable, comma-separated)', collect)
    .option('-s, --status <values>', 'tender statuses such as open (repeatable, comma-separated)', collect)
    .option('--sort <field>', 'sort by publicationDate, deadline or estimatedValue')
    .option('--order <order>', 'asc or desc (default: the service default for the sort field)')
    .option('-n, --limit <n>', 'results per page, 1-100')
    .option('--filter <key=value>', 'extra request field; VALUE is parsed as JSON when valid (repeatable)', collect);
}

export interface OutputFlags {
  format?: string;
  columns?: string;
  header: boolean;
  excelSafe?: boolean;
  output?: string;
  resume?: boolean;
  max?: string;
}

export function addOutputOptions(cmd: Command, formatHelp: string): Command {
  return cmd
    .addOption(new Option('-f, --format <format>', `output format: ${formatHelp}`).choices(FORMATS))
    .option('--columns <paths>', 'fields to print, as dot paths (e.g. id,buyer.name,estimatedValue.amountEur)')
    .option('--no-header', 'CSV without its header row')
    .option('--excel-safe', 'CSV: guard cells starting with = + - @ against formula injection')
    .option('-o, --output <file>', 'write to FILE atomically instead of stdout')
    .option('--max <n>', 'stop after N results');
}

export function outputPlan(flags: OutputFlags, defaultFormat: Format): OutputPlan {
  if (flags.resume && !flags.output) throw new UsageError('--resume continues an export into a file: use it with -o FILE');
  if (flags.output !== undefined && flags.output.trim() === '') throw new UsageError('-o takes a file name');
  return {
    format: (flags.format as Format | undefined) ?? defaultFormat,
    columns: flags.columns !== undefined ? parseColumns(flags.columns) : undefined,
    header: flags.header,
    excelSafe: Boolean(flags.excelSafe),
    file: flags.output,
    resume: Boolean(flags.resume),
  };
}

export function parseMax(flags: OutputFlags): number | undefined {
  return flags.max === undefined ? undefined : parseInteger('--max', flags.max, 1);
}

export interface GlobalFlags {
  baseUrl?: string;
  timeout: string;
  retries: string;
  quiet?: boolean;
  verbose?: boolean;
}

export function addGlobalOptions(cmd: Command): Command {
  return cmd
    .option('--base-url <url>', 'service base URL (or set TENDERS_BASE_URL)')
    .option('--timeout <ms>', 'time limit per request attempt, in milliseconds', '30000')
    .option('--retries <n>', 'retries of a failed request (429, 5xx, timeouts, connection errors)', '5')
    .option('-q, --quiet', 'no progress, hints or warnings on stderr (errors still)')
    .option('-v, --verbose', 'one line per HTTP request on stderr, and stack traces');
}

export function connectionPlan(flags: GlobalFlags): ConnectionPlan {
  if (flags.quiet && flags.verbose) throw new UsageError('--quiet and --verbose contradict each other: choose one');
  return {
    baseUrl: parseBaseUrl(flags.baseUrl ?? process.env.TENDERS_BASE_URL),
    timeoutMs: parseInteger('--timeout', flags.timeout, 1),
    retries: parseInteger('--retries', flags.retries, 0, 100),
    quiet: Boolean(flags.quiet),
    verbose: Boolean(flags.verbose),
  };
}

/** search and orgs: a table for a person at a terminal, NDJSON for a program or a file. */
export function interactiveFormat(file: string | undefined): Format {
  return process.stdout.isTTY && file === undefined ? 'table' : 'ndjson';
}

export function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  ${line}`).join('\n')}\n`;
}
