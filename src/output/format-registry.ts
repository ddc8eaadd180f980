import { UsageError } from '../errors.js';
import type { FormatDefinition, FormatTraits } from './format-definition.js';
import { csv } from './formats/csv.js';
import { json } from './formats/json.js';
import { ndjson } from './formats/ndjson.js';
import { table } from './formats/table.js';
import { tsv } from './formats/tsv.js';
import { ics } from './formats/ics.js';
import { atom } from './formats/atom.js';
import { ocds } from './formats/ocds.js';
import { parquet } from './formats/parquet.js';

/**
 * Every output format, in the order help lists them. A new format is a file
 * under formats/ and a line here; every writer of rows, the -o extensions,
 * the --format choices and the shell completion follow from this list.
 */
export const FORMAT_DEFINITIONS = [table, csv, ndjson, json, tsv, ics, atom, ocds, parquet] as const;

export type Format = (typeof FORMAT_DEFINITIONS)[number]['name'];

export const FORMATS: readonly Format[] = FORMAT_DEFINITIONS.map((d) => d.name);

const BY_NAME = new Map<string, FormatDefinition>(FORMAT_DEFINITIONS.map((d) => [d.name, d]));

export function formatDefinition(name: Format): FormatDefinition<Format> {
  return BY_NAME.get(name)! as FormatDefinition<Format>;
}

export function traitsOf(name: Format): FormatTraits {
  return formatDefinition(name).traits;
}

/** The formats that write any records (count --by's partitions, a watch list), not only tenders. */
export function recordFormats(): Format[] {
  return FORMAT_DEFINITIONS.filter((d) => d.traits.anyRecords).map((d) => d.name);
}

/** Every file name ending that implies a format, as -o's help lists them (".csv, .ndjson, .jsonl, .json, .tsv, ..."). */
export function fileExtensions(): string[] {
  return FORMAT_DEFINITIONS.flatMap((d) => d.extensions);
}

/** The format `file`'s extension names (case-insensitive), if it names one; the longest wins (`.ocds.json` over `.json`). */
export function formatOfFile(file: string): Format | undefined {
  const name = file.toLowerCase();
  let best: { format: Format; length: number } | undefined;
  for (const d of FORMAT_DEFINITIONS) {
    for (const ext of d.extensions) if (name.endsWith(ext) && name.length > ext.length && ext.length > (best?.length ?? 0)) best = { format: d.name, length: ext.length };
  }
  return best?.format;
}

/** The compression `-o FILE.gz` asks for, of any format. */
export const GZIP_EXTENSION = '.gz';

/**
 * What -o's file name says: whether it ends in `.gz` (compressed), the format
 * the extension before that names, or the extension no format has (`.xlsx`),
 * which a run refuses rather than write some other format under that name.
 */
export function fileFormat(file: string): { gzip: boolean; format?: Format; unknown?: string } {
  const base = (path: string) => path.slice(path.lastIndexOf('/') + 1);
  const gzip = file.toLowerCase().endsWith(GZIP_EXTENSION) && base(file).length > GZIP_EXTENSION.length;
  const name = gzip ? file.slice(0, -GZIP_EXTENSION.length) : file;
  const format = formatOfFile(name);
  if (format) return { gzip, format };
  const unknown = /.(\.[a-z][a-z0-9]*)$/i.exec(base(name))?.[1];
  return unknown ? { gzip, unknown } : { gzip };
}

/** A binary format cannot go to a terminal: a usage error (exit 2), said before any request. */
export function refuseOnTerminal(definition: { name: string; traits: Pick<FormatTraits, 'binary'> }, terminal: boolean): void {
  if (terminal && definition.traits.binary) {
    throw new UsageError(`--format ${definition.name} writes binary data, which a terminal cannot show: write it to a file with -o FILE, or into a pipe`);
  }
}

/** A format's own flag given with another format: a usage error naming the format(s) that take it. */
export function checkFormatFlag(flag: string, given: boolean, format: Format): void {
  if (!given || formatDefinition(format).flags?.includes(flag)) return;
  const takers = FORMAT_DEFINITIONS.filter((d) => (d.flags as readonly string[] | undefined)?.includes(flag)).map((d) => d.name);
  throw new UsageError(`${flag} is for the ${takers.join(', ')} format, not ${format}: add -f ${takers[0]}`);
}
