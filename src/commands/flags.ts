import { Option, type Command } from 'commander';
import { fileExtensions, FORMATS, GZIP_EXTENSION, recordFormats } from '../output/format-registry.js';
import { HEADER_STYLES } from '../output/header-style.js';
import { COLOR_MODES } from '../io.js';
import type { OrgFilterFlags } from '../query/org-body.js';
import type { LocalFilterFlags, TenderFilterFlags } from '../query/tender-body.js';
import { LOCAL_ONLY_FILTERS, ONLINE_FILTERS, tenderFilter, type TenderFilter } from '../query/tender-filters.js';

export type { LocalFilterFlags, OrgFilterFlags, TenderFilterFlags };

/** Every flag that more than one command takes, defined once. */

export const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * Values shown in help and completed by the shell, without commander's exact
 * check (it would refuse `--sort DEADLINE`): the flag's parser checks them.
 */
const suggested = (option: Option, values: readonly string[]): Option => {
  option.argChoices = [...values];
  return option;
};

/** A flag whose default is described rather than set (it depends on the terminal or the command). */
const described = (option: Option, description: string): Option => {
  option.defaultValueDescription = description;
  return option;
};

/** The commander option of a row of the filter table (query/tender-filters.ts). */
export function filterOption(row: TenderFilter): Option {
  const option = new Option(`${row.short ? `${row.short}, ` : ''}${row.flag} ${row.value}`, row.help);
  if (row.repeatable) option.argParser(collect);
  if (row.suggest) suggested(option, row.suggest);
  if (row.defaultHelp) described(option, row.defaultHelp);
  return option;
}

export const cursorOption = () => new Option('--cursor <cursor>', 'start from this page (from a previous "Next page" hint)');
export const allOption = () => new Option('--all', 'follow nextCursor to the last page');
export const shownOption = () =>
  new Option('--shown <n>', 'with --cursor: how many results the earlier pages showed (the next-page hint adds it), for "Showing 6–10"');
export const resumeOption = () => new Option('--resume', 'with -o: continue an interrupted export of the same query');
export const parallelOption = () =>
  described(
    new Option('--parallel <n>', 'one cursor chain per country (else per status) at once, at most N requests in flight, merged in sort order'),
    '1, one chain',
  );
export const sortPathOption = () =>
  new Option('--sort-path <field=path>', 'with --parallel: where results hold the value they are sorted by (repeatable; env TENDERS_SORT_PATHS)').argParser(collect);
export const receiptOption = () => new Option('--receipt <file>', 'when the run ends, write a JSON record of it to FILE: counts, completeness, SHA-256');
export const localOption = () => new Option('--local', 'ask the local copy tenders sync keeps, never the network (docs/local-queries.md)');
export const dbOption = () =>
  described(new Option('--db <path>', 'the local copy: a SQLite file or a postgres:// URL (env TENDERS_DB)'), '$XDG_DATA_HOME/tenders/tenders.db or ~/.local/share/tenders/tenders.db');
export const pathOption = (envName: string, fallback: string) =>
  described(new Option('--path <template>', `API path of this operation (env ${envName})`), fallback);

/** The tender filters an online command takes: every row of the table that is not local-only. */
export function addTenderFilters(cmd: Command): void {
  for (const row of ONLINE_FILTERS) cmd.addOption(filterOption(row));
}

/**
 * The local-only filters (WORDS, --since, --until, --deadline-after,
 * --deadline-before, --min-value, --max-value, --sync), for a command that
 * also takes --local; tenderBody refuses them without it. Read them back
 * with localFilterFlags.
 */
export function addLocalFilters(cmd: Command): void {
  for (const row of LOCAL_ONLY_FILTERS) {
    if (row.positional) cmd.argument(row.value, row.help);
    else cmd.addOption(filterOption(row));
  }
}

/** The filter flags of a command that took addLocalFilters: its options plus the positional WORDS. */
export function localFilterFlags(command: Command): TenderFilterFlags & LocalFilterFlags {
  const flags: TenderFilterFlags & LocalFilterFlags = { ...command.opts() };
  for (const row of LOCAL_ONLY_FILTERS.filter((r) => r.positional)) {
    const at = command.registeredArguments.findIndex((arg) => arg.name() === row.key);
    if (at >= 0) (flags as Record<string, unknown>)[row.key] = command.processedArgs[at];
  }
  return flags;
}

/** Organisation filters: the tender table's country (of the organisation), limit and filter rows. */
export function addOrgFilters(cmd: Command): void {
  cmd
    .option('--query <text>', 'text to look for in organisation names')
    .addOption(filterOption({ ...tenderFilter('country'), help: 'organisation country codes, three letters (repeatable, comma-separated)' }))
    .addOption(filterOption(tenderFilter('limit')))
    .addOption(filterOption(tenderFilter('filter')));
}

export interface OutputFlags {
  format?: string;
  columns?: string;
  header: boolean;
  headerStyle: string;
  excelSafe?: boolean;
  output?: string;
  resume?: boolean;
  max?: string;
  remind?: string;
  ocidPrefix?: string;
}

/**
 * The output flags; `max: false` for a command that always walks to the end
 * (watch); `tenders` adds the flags of the formats made for tenders (ics, ocds).
 */
export function addOutputFlags(cmd: Command, defaultFormat: string, { max = true, tenders = false, also = [] as readonly string[] } = {}): void {
  cmd
    // The formats made for tenders (ics, atom, ocds, parquet) are offered only where the records are tenders, or `also` where a command writes one its own way.
    .addOption(described(new Option('-f, --format <format>', 'output format').choices(tenders ? FORMATS : [...recordFormats(), ...also]), defaultFormat))
    .option('--columns <paths>', 'fields to print, as dot paths (e.g. id,buyer.name,estimatedValue.amountEur)')
    .option('--no-header', 'CSV without its header row')
    .addOption(
      new Option('--header-style <style>', 'CSV and table headers as dot paths (buyer.name) or snake_case (buyer_name)')
        .choices(HEADER_STYLES)
        .default('path'),
    )
    .option('--excel-safe', 'CSV: guard cells starting with = + - @ against formula injection')
    .option('-o, --output <file>', `write to FILE atomically instead of stdout (- is stdout; devices and FIFOs are written straight through); ${fileExtensions().join(', ')} set the format; ${GZIP_EXTENSION} after one compresses it`);
  if (max) cmd.option('--max <n>', 'stop after N results');
  if (tenders) {
    cmd
      .addOption(described(new Option('--remind <list>', 'ics: reminders before each deadline, e.g. 7d,1d,2h (w, d, h, m), or none'), '7d,1d'))
      .addOption(described(new Option('--ocid-prefix <prefix>', 'ocds: what each ocid starts with (your registered ocds-xxxxxx- prefix)'), 'ocds-tenders-'));
  }
}

export interface GlobalFlags {
  baseUrl?: string;
  profile?: string;
  timeout: string;
  retries: string;
  maxWait: string;
  rate?: string;
  quiet?: boolean;
  verbose?: boolean;
  color: string;
  /** --no-pager makes it false. */
  pager: boolean;
  dryRun?: boolean;
  /** --cpv-paths: where tenders' CPV codes are (cpvPathsPlan reads it with TENDERS_CPV_PATHS). */
  cpvPaths?: string;
}

export function addGlobalFlags(cmd: Command): void {
  cmd
    .option('--base-url <url>', 'service base URL (or set TENDERS_BASE_URL)')
    .option('--profile <name>', 'take the defaults of [profile.NAME] in the config file (env TENDERS_PROFILE; tenders help config)')
    .addOption(described(new Option('--timeout <ms>', 'time limit of each request attempt, to the last byte, in milliseconds').default('30000'), '30000'))
    .addOption(described(new Option('--retries <n>', 'retries of a failed request (429, 5xx, timeouts, connection errors)').default('5'), '5'))
    .addOption(described(new Option('--max-wait <seconds>', 'stop instead of waiting out a longer Retry-After').default('120'), '120'))
    .addOption(new Option('--rate <r>', 'at most R requests per second across the run (decimals allowed, e.g. 0.5)'))
    .addOption(new Option('--color <when>', 'colour on the terminal').choices(COLOR_MODES).default('auto'))
    .option('--no-pager', 'print to the terminal directly, not through $TENDERS_PAGER, $PAGER or less')
    .addOption(
      described(
        new Option('--cpv-paths <paths>', "where tenders' CPV codes are: comma-separated dot paths; a sync reads the copy's codes from them (env TENDERS_CPV_PATHS)"),
        'cpvCodes,cpv',
      ),
    )
    .option('-q, --quiet', 'no progress, hints or warnings on stderr (errors still)')
    .option('-v, --verbose', 'one line per HTTP request on stderr, and the stack trace of an unexpected error')
    .option('--dry-run', 'print the first request (method, URL, JSON body) on stdout and send nothing');
}

/** Help text for an option: choices as a|b|c and defaults unquoted, each said once. */
export function describeOption(option: Option): string {
  const extra: string[] = [];
  if (option.argChoices) extra.push(option.argChoices.join('|'));
  const fallback = option.defaultValueDescription ?? (typeof option.defaultValue === 'string' ? option.defaultValue : undefined);
  if (fallback !== undefined) extra.push(`default: ${fallback}`);
  return extra.length ? `${option.description} (${extra.join('; ')})` : option.description;
}

/**
 * A command's `Examples:` block, then `after`, as help text made when help is shown (commander
 * calls it then): a run that shows no help does not lay out its examples.
 */
export function examples(lines: string[], after = ''): () => string {
  return () => `\nExamples:\n${lines.flatMap(example).join('\n')}\n${after}`;
}

/**
 * Help is read at 80 columns, and a terminal breaks a line mid-word: an example
 * that would pass them has its comment on the line before, and a command still
 * too long goes on over lines ending in ` \`, broken between words (never
 * inside quotes), so it still pastes as one command.
 */
const HELP_WIDTH = 80;

function example(line: string): string[] {
  if (line.length + 2 <= HELP_WIDTH) return [`  ${line}`];
  const comment = / +# /.exec(line);
  const command = comment ? line.slice(0, comment.index) : line;
  const words = command.match(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g) ?? [command];
  const lines: string[] = [];
  for (const word of words) {
    const last = lines.length - 1;
    if (last >= 0 && `${lines[last]} ${word} \\`.length <= HELP_WIDTH) lines[last] += ` ${word}`;
    else lines.push(last < 0 ? `  ${word}` : `      ${word}`);
  }
  const body = lines.map((text, i) => (i < lines.length - 1 ? `${text} \\` : text));
  return comment ? [`  ${line.slice(comment.index).trim()}`, ...body] : body;
}
