import { sumTotals, type Total } from '../model/total.js';
import type { FormatTraits } from './format-definition.js';
import { recordFormats, traitsOf, type Format } from './format-registry.js';
import { createFormatter, joinChunks, type Chunk } from './formatter.js';
import { formatTotal } from '../model/numbers.js';
import { neutralizeForTerminal, sanitizeForTerminal } from './terminal/sanitize.js';

/** One partition's count: `capped` when the service stopped counting at its ceiling. */
export interface CountRow extends Total {
  /** The value as the table shows it. */
  value: string;
  /** count --local: the field's JSON value for the record formats (a number stays a number); undefined: the field is absent. */
  json?: { value: unknown };
}

/** `text` is count's default format; the others are the registry's formats that write any records. */
export type CountFormat = 'text' | Format;

/** One of count's --format choices: how it writes one total, and count --by's parts. */
export interface CountFormatDefinition {
  readonly name: CountFormat;
  /** One total (no --by) as this format writes it; absent: the format writes a row per part, so it needs --by. */
  readonly total?: (total: Total) => string;
  /** --by's parts: the table with their sum (for people), one JSON document with their sum, or a row each by a registry format's formatter. */
  readonly parts: 'table' | 'document' | { rows: Format };
  /** As the registry's: bytes no terminal can show are refused on one. */
  readonly traits: Pick<FormatTraits, 'binary'>;
}

/** count's own `text`: a number (N+ when capped), and the table. */
const TEXT: CountFormatDefinition = { name: 'text', total: (t) => `${t.count}${t.capped ? '+' : ''}`, parts: 'table', traits: { binary: false } };

/** count's own `json`, in the place of the registry's (an array of rows): one object, the count or the sum and its parts. */
const JSON_COUNT: CountFormatDefinition = { name: 'json', total: (t) => JSON.stringify({ count: t.count, capped: t.capped }), parts: 'document', traits: { binary: false } };

/** count's formats in help's order: its `text`, then the registry's formats that write any records, its own `json` among them. */
function countFormatList(): CountFormatDefinition[] {
  const own = new Map([[JSON_COUNT.name, JSON_COUNT]]);
  const fromRegistry = (name: Format): CountFormatDefinition => {
    const traits = traitsOf(name);
    return { name, parts: traits.forPeople ? 'table' : { rows: name }, traits };
  };
  return [TEXT, ...recordFormats().map((name) => own.get(name) ?? fromRegistry(name))];
}

export function countFormat(name: CountFormat): CountFormatDefinition {
  return countFormatList().find((d) => d.name === name)!;
}

/** count's --format choices: every one, and those that need --by (a row per part). */
export function countFormats(): { all: CountFormat[]; byOnly: CountFormat[] } {
  const list = countFormatList();
  return { all: list.map((d) => d.name), byOnly: list.filter((d) => !d.total).map((d) => d.name) };
}

export interface CountTableOptions {
  /** Columns to fit the bars into. */
  width: number;
  /** Draw a proportional bar per row (a terminal). */
  bars: boolean;
  color: boolean;
  /** Thousands separators (a terminal); a pipe gets plain numbers, as `count` prints. */
  grouped: boolean;
  /** The output is a terminal: the other formats neutralise what could drive it, as every output does. */
  terminal: boolean;
}

const BAR_MAX = 40;
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/**
 * `count --by`: each partition's count and their sum. A table for people (with
 * bars on a terminal); JSON one object with the sum as plain `count --format
 * json` gives it, and the partitions; any other format a row per partition,
 * written by that format's formatter.
 */
export async function renderCounts(by: string, rows: readonly CountRow[], format: CountFormat, table: CountTableOptions): Promise<Chunk> {
  // A dot path (buyer.name) nests as in the documents, so CSV's buyer.name column finds it.
  const record = (row: CountRow) => ({ ...atPath(by, row.json ? row.json.value : row.value), count: row.count, capped: row.capped });
  const { parts } = countFormat(format);
  if (parts === 'table') return countTable(by, rows, table);
  if (parts === 'document') {
    const text = `${JSON.stringify({ by, ...sumTotals(rows), partitions: rows.map(record) })}\n`;
    return table.terminal ? neutralizeForTerminal(text, true) : text;
  }
  const formatter = await createFormatter(parts.rows, {
    columns: [by, 'count', 'capped'],
    header: true,
    headerStyle: 'path',
    excelSafe: false,
    color: false,
    terminal: table.terminal,
  });
  return joinChunks([formatter.page(rows.map(record)), formatter.end()]);
}

/** `{buyer: {name: value}}` for `buyer.name`; nothing for an absent value. */
function atPath(path: string, value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  return path
    .split('.')
    .reduceRight<unknown>((inner, key) => Object.defineProperty({}, key, { value: inner, enumerable: true, writable: true, configurable: true }), value) as Record<string, unknown>;
}

function countTable(by: string, rows: readonly CountRow[], opts: CountTableOptions): string {
  const total = sumTotals(rows);
  const number = opts.grouped ? formatTotal : (t: Total) => `${t.count}${t.capped ? '+' : ''}`;
  // A value is the service's text: cleaned as a table's cells are, wherever the table goes.
  const lines = [...rows.map((row) => [sanitizeForTerminal(row.value), number(row)]), ['total', number(total)]];
  const labelWidth = Math.max(by.length, ...lines.map(([label]) => label!.length));
  const countWidth = Math.max('count'.length, ...lines.map(([, count]) => count!.length));
  const barWidth = Math.min(BAR_MAX, opts.width - labelWidth - countWidth - 4);
  const bars = opts.bars && barWidth >= 5;
  const most = Math.max(1, ...rows.map((row) => row.count));
  const bar = (count: number) => {
    const eighths = Math.round((count / most) * barWidth * 8);
    const text = '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8];
    return opts.color ? `\x1b[36m${text}\x1b[39m` : text;
  };
  const line = (label: string, count: string, extra = '') => `${label.padEnd(labelWidth)}  ${count.padStart(countWidth)}${extra}`.trimEnd();
  const head = line(sanitizeForTerminal(by), 'count');
  return [
    opts.color ? `\x1b[1m${head}\x1b[22m` : head,
    ...rows.map((row, i) => line(lines[i]![0]!, lines[i]![1]!, bars ? `  ${bar(row.count)}` : '')),
    line('total', lines.at(-1)![1]!),
  ].join('\n') + '\n';
}
