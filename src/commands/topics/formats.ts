import { countFormats } from '../../output/counts.js';
import { FIELD_LIST_FORMATS } from '../../output/field-list.js';
import { FORMAT_DEFINITIONS, GZIP_EXTENSION } from '../../output/format-registry.js';
import { items, prose, type HelpTopic } from './topic.js';

/** `.csv → csv; .ndjson, .jsonl → ndjson; ...`, from the registry. */
function extensions(): string {
  return FORMAT_DEFINITIONS.filter((d) => d.extensions.length)
    .map((d) => `${d.extensions.join(', ')} → ${d.name}`)
    .join('; ');
}

export const formatsTopic: HelpTopic = {
  name: 'formats',
  summary: 'the output formats (-f) and how -o FILE chooses one',
  text: (width) =>
    `Output formats of search, export, orgs and watch (-f, --format):\n\n${items(width, FORMAT_DEFINITIONS.map((d) => [d.name, d.description]))}\n\n${prose(
      width,
      `Without -f: search, orgs and watch print a table on a terminal and NDJSON elsewhere; export writes CSV.
       With -o FILE and no -f, the extension chooses (any case): ${extensions()}; a name without an extension keeps the default.
       Another extension without -f, or one that contradicts -f, is a usage error (exit 2).
       ${GZIP_EXTENSION} after any of them (or alone) compresses the output with gzip: -o open.csv.gz, -o open.ndjson.gz
       (not resumable).`,
      `--columns a,b.c picks fields (dot paths: 'tenders fields' lists them) for table, CSV, TSV and Parquet,
       and projects NDJSON and JSON. CSV and TSV only: --no-header, --excel-safe (a ' before a leading = + - @), --header-style snake.
       Numbers keep their digits in every format. On a terminal, control characters in the data are
       neutralised; into a pipe or a file the bytes are the service's.`,
      `ics only: --remind; ocds only: --ocid-prefix. parquet is binary: -o FILE or a pipe, never a terminal, and
       not resumable. count (-f ${countFormats().all.join('|')}) and fields (-f ${FIELD_LIST_FORMATS.join('|')}) have
       formats of their own: see their --help.`,
    )}\n`,
};
