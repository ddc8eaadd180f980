import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../errors.js';
import { MAX_WAIT_MAX_S } from '../model/settings.js';
import { CPV_PATHS_RULE, DEFAULT_CPV_PATHS, parseCpvPaths } from '../model/cpv.js';
import { withoutCredentials, withoutPasswords } from '../model/redact.js';
import { isPostgresLocation } from '../store/store.js';
import type { Env, IO } from '../io.js';
import { createReporter } from '../output/terminal/reporter.js';
import { checkFormatFlag, fileExtensions, fileFormat, GZIP_EXTENSION, traitsOf } from '../output/format-registry.js';
import { parseReminders } from '../output/formats/reminders.js';
import type { Format } from '../output/format-registry.js';
import type { HeaderStyle } from '../output/header-style.js';
import { parseBaseUrl, parseColumns, parseInteger, parseRate } from '../query/validate.js';
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

/**
 * The connection of a run that reads the local copy: no service, so no base
 * URL is needed (the store's location stands where a receipt records the
 * service); --timeout, --retries, --max-wait and --rate have nothing to pace
 * and are ignored, as are TENDERS_BASE_URL and --base-url.
 */
export function localConnectionPlan(flags: GlobalFlags, location: string): ConnectionPlan {
  if (flags.quiet && flags.verbose) throw new UsageError('--quiet and --verbose contradict each other: choose one');
  return {
    baseUrl: isPostgresLocation(location) ? new URL(location) : pathToFileURL(resolve(location)),
    timeoutMs: 0,
    retries: 0,
    maxWaitMs: 0,
    quiet: Boolean(flags.quiet),
    verbose: Boolean(flags.verbose),
    dryRun: false,
  };
}

/**
 * Where tenders' CPV codes are: --cpv-paths (or the config file's cpv-paths, which
 * commands/settings.ts sets as its value), else TENDERS_CPV_PATHS, else cpvCodes,cpv.
 * A list with an empty path or part is exit 2 with the rule.
 */
export function cpvPathsPlan(flags: GlobalFlags, env: Env): readonly string[] {
  const [text, by] = flags.cpvPaths !== undefined ? [flags.cpvPaths, '--cpv-paths'] : [env.TENDERS_CPV_PATHS, 'TENDERS_CPV_PATHS'];
  if (text === undefined || (by === 'TENDERS_CPV_PATHS' && text.trim() === '')) return DEFAULT_CPV_PATHS;
  const paths = parseCpvPaths(text);
  if (!paths) throw new UsageError(`${by} takes ${CPV_PATHS_RULE}, not '${text}'`);
  return paths;
}

/** --shown: the results before this page, known only from a next-page hint (so only with --cursor). */
export function parseShown(flags: { cursor?: string; shown?: string }): number | undefined {
  if (flags.shown === undefined) return undefined;
  if (flags.cursor === undefined) throw new UsageError('--shown numbers the results of a page reached by --cursor: use it with --cursor');
  return parseInteger('--shown', flags.shown, 0, Number.MAX_SAFE_INTEGER);
}

/** The file -o names; `-o -` is stdout, as in curl and tar. */
export function outputFile(flags: OutputFlags): string | undefined {
  return flags.output === '-' ? undefined : flags.output;
}

export function outputPlan(flags: OutputFlags, defaultFormat: Format): OutputPlan {
  const file = outputFile(flags);
  if (flags.resume && !file) throw new UsageError('--resume continues an export into a file: use it with -o FILE');
  if (file !== undefined && file.trim() === '') throw new UsageError('-o takes a file name');
  const { format, gzip } = chooseFormat(flags, defaultFormat);
  if (flags.resume && gzip) throw new UsageError(`--resume cannot continue a compressed file: run the export again without --resume, or compress afterwards (-o ${file!.slice(0, -GZIP_EXTENSION.length)})`);
  if (flags.resume && !traitsOf(format).resumable) {
    throw new UsageError(`--resume cannot continue a ${format} file (its footer indexes everything written): run the export again without --resume`);
  }
  checkFormatFlag('--remind', flags.remind !== undefined, format);
  checkFormatFlag('--ocid-prefix', flags.ocidPrefix !== undefined, format);
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
    ...(gzip ? { gzip } : {}), // absent otherwise: a resume state's fingerprint stays what it was
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

/**
 * --format, else what -o's extension says (.csv, .tsv, .ndjson, .jsonl, .json, .ics, .atom, .ocds.json, .parquet), else
 * the command's default; and whether `.gz` follows (compressed, any format). An extension that names no format is a
 * usage error without --format: writing CSV under the name x.xlsx would deceive whoever opens it.
 */
function chooseFormat(flags: OutputFlags, defaultFormat: Format): { format: Format; gzip: boolean } {
  const named = flags.format as Format | undefined;
  const file = outputFile(flags);
  const { format: implied, gzip, unknown } = file === undefined ? { gzip: false } : fileFormat(file);
  if (named && implied && named !== implied) {
    throw new UsageError(`-o ${flags.output} names a ${implied} file but --format is ${named}: drop --format or rename the file`);
  }
  if (!named && unknown) {
    throw new UsageError(
      `-o ${flags.output}: no format writes ${unknown} files; name one with -f, or use an extension: ${fileExtensions().join(', ')} (each may end in ${GZIP_EXTENSION})`,
    );
  }
  return { format: named ?? implied ?? defaultFormat, gzip };
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
  return { file, command: line.name, argv: line.argv.map(withoutCredentials) };
}

/**
 * The command of a "Next page" hint: this one without its --cursor and --shown, and without the
 * password of a URL in it (--db postgres://...): a hint is printed, and the password comes again
 * from PGPASSWORD or ~/.pgpass. None for a command line that is not known.
 */
export function nextPageCommand(line: { argv: readonly string[]; invocation?: readonly string[] }): string[] | undefined {
  return line.argv.length === 0 ? undefined : [...(line.invocation ?? ['tenders']), ...withoutCursor(line.argv).map(withoutPasswords)];
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
