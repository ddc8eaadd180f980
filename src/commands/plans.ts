import { UsageError } from '../errors.js';
import type { IO } from '../io.js';
import { createReporter } from '../output/reporter.js';
import { formatOfFile, traitsOf } from '../output/format-registry.js';
import { parseReminders } from '../output/reminders.js';
import type { Format } from '../output/format-registry.js';
import type { HeaderStyle } from '../output/header-style.js';
import { MAX_WAIT_MAX_S, parseBaseUrl, parseColumns, parseInteger, parseRate } from '../query/validate.js';
import type { ConnectionPlan, OutputPlan } from '../run/plan.js';
import type { ReceiptPlan } from '../run/receipt.js';
import type { GlobalFlags, OutputFlags } from './flags.js';

/** Parsed flags → plans, checked before any request is sent (UsageError: exit 2). */

/** --base-url, else TENDERS_BASE_URL; a mended one said with --verbose. */
function baseUrl(flags: GlobalFlags, io: IO): URL {
  const { url, note } = parseBaseUrl(flags.baseUrl ?? io.env.TENDERS_BASE_URL);
  if (note) createReporter(io, { quiet: Boolean(flags.quiet), verbose: Boolean(flags.verbose) }).debug(note);
  return url;
}

export function connectionPlan(flags: GlobalFlags, io: IO): ConnectionPlan {
  if (flags.quiet && flags.verbose) throw new UsageError('--quiet and --verbose contradict each other: choose one');
  return {
    baseUrl: baseUrl(flags, io),
    timeoutMs: parseInteger('--timeout', flags.timeout, 1),
    retries: parseInteger('--retries', flags.retries, 0, 100),
    maxWaitMs: parseInteger('--max-wait', flags.maxWait, 0, MAX_WAIT_MAX_S) * 1000,
    rate: flags.rate === undefined ? undefined : parseRate(flags.rate),
    quiet: Boolean(flags.quiet),
    verbose: Boolean(flags.verbose),
    dryRun: Boolean(flags.dryRun),
  };
}

/** The file -o names; `-o -` is stdout, as in curl and tar. */
export function outputFile(flags: OutputFlags): string | undefined {
  return flags.output === '-' ? undefined : flags.output;
}

export function outputPlan(flags: OutputFlags, defaultFormat: Format): OutputPlan {
  const file = outputFile(flags);
  if (flags.resume && !file) throw new UsageError('--resume continues an export into a file: use it with -o FILE');
  if (file !== undefined && file.trim() === '') throw new UsageError('-o takes a file name');
  const format = chooseFormat(flags, defaultFormat);
  if (flags.resume && !traitsOf(format).resumable) {
    throw new UsageError(`--resume cannot continue a ${format} file (its footer indexes everything written): run the export again without --resume`);
  }
  if (flags.remind !== undefined && format !== 'ics') throw new UsageError(`--remind sets the reminders of the ics format, not ${format}: add -f ics`);
  if (flags.ocidPrefix !== undefined && format !== 'ocds') throw new UsageError(`--ocid-prefix is for the ocds format, not ${format}: add -f ocds`);
  return {
    format,
    columns: flags.columns !== undefined ? parseColumns(flags.columns) : undefined,
    header: flags.header,
    headerStyle: flags.headerStyle as HeaderStyle,
    excelSafe: Boolean(flags.excelSafe),
    file,
    resume: Boolean(flags.resume),
    reminders: flags.remind === undefined ? undefined : parseReminders(flags.remind),
    ocidPrefix: flags.ocidPrefix === undefined ? undefined : parseOcidPrefix(flags.ocidPrefix),
  };
}

/** An ocid prefix: printable, no spaces (a registered one is `ocds-` and six characters). */
function parseOcidPrefix(value: string): string {
  if (!/^[\x21-\x7e]+$/.test(value)) throw new UsageError(`--ocid-prefix takes letters, digits and punctuation without spaces, e.g. ocds-a1b2c3-: got ${JSON.stringify(value)}`);
  return value;
}

/** Ample for a dozen countries; a free service deserves no more. */
export const MAX_PARALLEL = 16;

export function parseParallel(value: string | undefined): number {
  return value === undefined ? 1 : parseInteger('--parallel', value, 1, MAX_PARALLEL);
}

/** --format, else what -o's extension says (.csv, .tsv, .ndjson, .jsonl, .json, .ics, .atom, .ocds.json, .parquet), else the command's default. */
function chooseFormat(flags: OutputFlags, defaultFormat: Format): Format {
  const named = flags.format as Format | undefined;
  const implied = flags.output === undefined ? undefined : formatOfFile(flags.output);
  if (named && implied && named !== implied) {
    throw new UsageError(`-o ${flags.output} names a ${implied} file but --format is ${named}: drop --format or rename the file`);
  }
  return named ?? implied ?? defaultFormat;
}

export function parseMax(flags: OutputFlags): number | undefined {
  return flags.max === undefined ? undefined : parseInteger('--max', flags.max, 1);
}

/** search and orgs: a table for a person at a terminal, NDJSON for a program or a file. */
export function interactiveFormat(io: IO, file: string | undefined): Format {
  return io.stdoutIsTTY && file === undefined ? 'table' : 'ndjson';
}

/** --receipt FILE: where, and the command line it records (without credentials). */
export function receiptPlan(file: string, line: { name: string; argv: readonly string[] }): ReceiptPlan {
  if (file.trim() === '') throw new UsageError('--receipt takes a file name');
  return { file, command: line.name, argv: redactArgv(line.argv) };
}

/** The arguments of a command line, safe to keep: a password in any URL among them is removed. */
export function redactArgv(argv: readonly string[]): string[] {
  return argv.map((arg) => arg.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1'));
}

/** A command line without its --cursor and --shown (`--cursor C` or `--cursor=C`), to repeat it from another page. */
export function withoutCursor(argv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      kept.push(...argv.slice(i)); // operands from here on
      break;
    }
    if (arg === '--cursor' || arg === '--shown') i++;
    else if (!arg.startsWith('--cursor=') && !arg.startsWith('--shown=')) kept.push(arg);
  }
  return kept;
}
