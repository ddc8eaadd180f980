import { FILE_EXTENSIONS } from '../../output/file-format.js';
import type { Format } from '../../output/formatter.js';
import { items, prose, type HelpTopic } from './topic.js';

/** One line per format of search, export, orgs and watch (-f): adding a format without one does not compile. */
const FORMAT_LINES: Record<Format, string> = {
  table: 'borderless columns fitted to the terminal; the default on a terminal',
  csv: "RFC 4180, UTF-8, LF line ends; columns from --columns, else the first page's fields",
  ndjson: "one JSON object a line, the service's object unchanged; the default into a pipe",
  json: 'one JSON array, streamed; [] when nothing matches',
};

/** `.csv → csv; .ndjson, .jsonl → ndjson; ...` */
function extensions(): string {
  const byFormat = new Map<string, string[]>();
  for (const [ext, format] of Object.entries(FILE_EXTENSIONS)) byFormat.set(format, [...(byFormat.get(format) ?? []), ext]);
  return [...byFormat].map(([format, exts]) => `${exts.join(', ')} → ${format}`).join('; ');
}

export const formatsTopic: HelpTopic = {
  name: 'formats',
  summary: 'the output formats (-f) and how -o FILE chooses one',
  text: (width) =>
    `Output formats of search, export, orgs and watch (-f, --format):\n\n${items(width, Object.entries(FORMAT_LINES))}\n\n${prose(
      width,
      `Without -f: search, orgs and watch print a table on a terminal and NDJSON elsewhere; export writes CSV.
       With -o FILE and no -f, the extension chooses (any case): ${extensions()}; other names keep the default.
       An extension that contradicts -f is a usage error (exit 2).`,
      `--columns a,b.c picks fields (dot paths: 'tenders fields' lists them) for table and CSV, and projects
       NDJSON and JSON. CSV only: --no-header, --excel-safe (a ' before a leading = + - @), --header-style snake.
       Numbers keep their digits in every format. On a terminal, control characters in the data are
       neutralised; into a pipe or a file the bytes are the service's.`,
      'count (-f text|table|csv|ndjson|json) and fields (-f table|tsv|json) have formats of their own: see their --help.',
    )}\n`,
};
