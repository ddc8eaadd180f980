import { nodeFs, readChunks, type FileSystem } from '../../files/fs.js';
import { RunError } from '../../errors.js';
import { parseJson as parseExact } from '../../model/json-parse.js';
import { holdsRawNumber, isObject, markHolder, RawNumber, stringifyExact, stringifyJson } from '../../model/exact-json.js';
import { FieldTable } from './field-table.js';
import { KnownTenders } from './known.js';
import type { SavedQuery, SavedSearch } from '../../model/saved-search.js';

/**
 * A watch's state file, NDJSON-like and versioned:
 *
 *   {"tendersWatch":1,"name":"deu-open","query":{"org":null,"body":{...}},"created":"...","service":"https://..."}
 *   "T-0001234"<TAB>slots<TAB>"title"<TAB>"deadline"<TAB>"url"
 *   ...
 *   {"end":{"lastRun":"...","tenders":1234,"newestPublicationDate":"...","fields":[["title"],...]}}
 *
 * One line per tender: its id as JSON (the key), its field hashes as base64url
 * of 32-bit little-endian slots, and the values a feed entry speaks of
 * (KEPT_FIELDS) as JSON, empty when absent: title, deadline, notice URL (a
 * `gone` row shows these three), then status and estimatedValue as [amount,
 * currency] (from which a `changed` entry says "deadline 2026-03-01 →
 * 2026-03-15"), empty cells after the deadline left out. A state written
 * before URLs, statuses or values were kept has fewer cells and reads the
 * same (what it did not keep is not known). A value is kept whole or not at
 * all (longer than TITLE_KEPT characters): a row's cells are the service's
 * text or empty, never an abbreviation. The last line proves the file whole.
 */
export const STATE_FORMAT = 1;
export const TITLE_KEPT = 1000;
/** What a state written before titles were kept whole holds of a long one: its first 199 characters and "…". */
const OLD_CUT = 200;
const TAB = 9;
const NEWLINE = 10;

/**
 * A state's first line: the watch as a saved search (its service absent in a
 * state written before it was kept: it then adopts the current one). A state
 * written before the service was called so names it `baseUrl`: read, never written.
 */
export interface StateHeader extends SavedSearch {
  created: string;
}

export interface StateSummary {
  lastRun: string;
  tenders: number;
  /** The newest publicationDate among the tenders (for --new-only's early stop). */
  newestPublicationDate: string | null;
  /** The field table's slots (see FieldTable). */
  fields: string[][];
}

export interface LoadedState {
  header: StateHeader;
  summary: StateSummary;
  known: KnownTenders;
  table: FieldTable;
  /** Where the tender lines are in the file: from the end of the header to the summary. */
  tenderBytes: [number, number];
}

/** A state's first line: its header (a --filter number keeps its digits). */
export function headerLine(header: StateHeader, format = STATE_FORMAT): string {
  return `${stringifyExact({ tendersWatch: format, ...header })}\n`;
}

/** A state's last line, which proves it whole. */
export function summaryLine(summary: StateSummary): string {
  return `${JSON.stringify({ end: summary })}\n`;
}

/** The state file cannot be used: exit 1, never a silent new baseline. */
export class StateError extends RunError {
  override name = 'StateError';
  constructor(
    file: string,
    private readonly problem: string,
    private readonly options?: { cause?: unknown; advice?: string },
  ) {
    super(
      `the watch state ${file} ${problem}: ${options?.advice ?? ''}run the same command with --reset to record a new ` +
        'baseline (changes since its last run are then not reported)',
      options,
    );
  }

  /** The same problem of the state kept at `place` (the file read was a copy of it). */
  of(place: string): StateError {
    return new StateError(place, this.problem, this.options);
  }
}

/** A tender's key: its id as JSON, for string and number ids; undefined when it has no usable id. */
export function tenderKey(tender: Record<string, unknown>): string | undefined {
  const id = tender.id;
  if (id instanceof RawNumber) return id.text; // what JSON.stringify writes of a number, every digit kept
  if (typeof id === 'string' ? id !== '' : typeof id === 'number' && Number.isFinite(id)) return JSON.stringify(id);
  return undefined;
}

const scratch = Buffer.alloc(4 * 64);

/** The base64url text of `length` slots. */
export function encodeSlots(slots: Uint32Array, length: number): string {
  for (let i = 0; i < length; i++) scratch.writeUInt32LE(slots[i]!, i * 4);
  return scratch.toString('base64url', 0, length * 4);
}

/** The fields a tender's line keeps the values of, in the order of its cells (a state file's format: append only). */
export const KEPT_FIELDS = ['title', 'deadline', 'url', 'status', 'estimatedValue'] as const;
/** What a `gone` row shows: the first three (the others are for a changed entry's "old → new"). */
const GONE_FIELDS = 3;

/** A tender's line, with its fingerprint as the table last computed it (title and deadline cells always, as every tenders reads). */
export function tenderLine(key: string, table: FieldTable, tender: Record<string, unknown>): string {
  const cells = KEPT_FIELDS.map((field) => kept(field, tender[field]));
  while (cells.length > 2 && cells.at(-1) === '') cells.pop();
  return `${key}\t${encodeSlots(table.slots, table.length)}${cells.map((cell) => `\t${cell}`).join('')}\n`;
}

/** A kept field's cell: its JSON, or empty when it is absent, too long to keep whole, or (the URL) not text. */
function kept(field: (typeof KEPT_FIELDS)[number], value: unknown): string {
  if (value === undefined || (field === 'url' && typeof value !== 'string')) return '';
  // A value as [amount, currency]: what a feed entry says of it, in a few bytes.
  if (field === 'estimatedValue') return isObject(value) ? stringifyJson([value.amount ?? null, value.currency ?? null]) : '';
  if (typeof value === 'string') return value.length > TITLE_KEPT ? '' : JSON.stringify(value);
  const json = stringifyJson(value);
  return json.length > TITLE_KEPT ? '' : json;
}

/** The whole lines of a file, a read's worth at a time (each batch's buffers stay valid). */
export async function* lineBatches(file: string, fs: FileSystem = nodeFs): AsyncGenerator<Buffer[]> {
  let rest: Buffer | undefined;
  for await (const chunk of readChunks(fs, file, { highWaterMark: 1 << 16 })) {
    const buf = rest ? Buffer.concat([rest, chunk]) : chunk;
    const lines: Buffer[] = [];
    let start = 0;
    for (let nl = buf.indexOf(NEWLINE); nl !== -1; nl = buf.indexOf(NEWLINE, start)) {
      lines.push(buf.subarray(start, nl));
      start = nl + 1;
    }
    rest = start < buf.length ? buf.subarray(start) : undefined;
    if (lines.length) yield lines;
  }
  if (rest) yield [rest];
}

/** The header of a watch's state, or undefined when the watch does not exist yet. */
export async function readHeader(file: string, fs: FileSystem = nodeFs): Promise<StateHeader | undefined> {
  let handle;
  try {
    handle = await fs.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateError(file, `cannot be read (${(err as Error).message})`, { cause: err });
  }
  try {
    const buf = Buffer.alloc(1 << 20);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const end = buf.subarray(0, bytesRead).indexOf(NEWLINE);
    return parseHeader(file, end === -1 ? buf.subarray(0, bytesRead) : buf.subarray(0, end));
  } catch (err) {
    if (err instanceof StateError) throw err;
    throw new StateError(file, `cannot be read (${(err as Error).message})`, { cause: err });
  } finally {
    await handle.close();
  }
}

/** The header and the summary (last line) of a state file, without reading the tenders. */
export async function readEnds(file: string, fs: FileSystem = nodeFs): Promise<{ header: StateHeader; summary: StateSummary }> {
  const header = await readHeader(file, fs);
  if (!header) throw new StateError(file, 'does not exist');
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, 1 << 20);
    const buf = Buffer.alloc(length);
    await handle.read(buf, 0, length, size - length);
    const body = buf.subarray(0, buf.length - 1);
    return { header, summary: parseSummary(file, body.subarray(body.lastIndexOf(NEWLINE) + 1)) };
  } finally {
    await handle.close();
  }
}

/** Reads a whole state: header, every tender's fingerprint, summary; StateError when anything is off. */
export async function loadState(file: string, fs: FileSystem = nodeFs): Promise<LoadedState> {
  let header: StateHeader | undefined;
  let summary: StateSummary | undefined;
  const known = new KnownTenders();
  const slots = new Uint32Array(64);
  const tenderBytes: [number, number] = [0, 0];
  let lineNo = 0;
  let offset = 0;
  try {
    for await (const lines of lineBatches(file, fs)) {
      for (const line of lines) {
        lineNo++;
        const end = offset + line.length;
        if (summary) throw new StateError(file, `has data after its last line (line ${lineNo})`);
        if (lineNo === 1) {
          header = parseHeader(file, line);
          tenderBytes[0] = end + 1;
        } else if (line[0] === 0x7b /* { */) {
          summary = parseSummary(file, line);
          tenderBytes[1] = offset;
        } else {
          const length = decodeTenderLine(file, line, lineNo, slots);
          known.add(line.toString('utf8', 0, line.indexOf(TAB)), slots, length, offset, line.length);
        }
        offset = end + 1;
      }
    }
  } catch (err) {
    if (err instanceof StateError) throw err;
    throw new StateError(file, `cannot be read (${(err as Error).message})`, { cause: err });
  }
  if (!header) throw new StateError(file, 'is empty');
  if (!summary) throw new StateError(file, 'is cut short (no summary line)');
  if (summary.tenders !== lineNo - 2) throw new StateError(file, `holds ${lineNo - 2} tenders where its summary says ${summary.tenders}`);
  known.compact();
  return { header, summary, known, table: new FieldTable(summary.fields), tenderBytes };
}

/** Checks a tender line and decodes its slots into `slots`; their count. */
function decodeTenderLine(file: string, line: Buffer, lineNo: number, slots: Uint32Array): number {
  const tab1 = line.indexOf(TAB);
  const tab2 = tab1 === -1 ? -1 : line.indexOf(TAB, tab1 + 1);
  const first = line[0]!;
  const n = tab2 === -1 ? -1 : decodeSlots(line, tab1 + 1, tab2, slots);
  if (n < 0 || !(first === 0x22 || first === 0x2d || (first >= 0x30 && first <= 0x39))) {
    throw new StateError(file, `has a damaged line ${lineNo}`);
  }
  return n;
}

/** base64url digits → their values; 255 for any other byte. */
const BASE64URL = new Uint8Array(256).fill(255);
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'].entries()) BASE64URL[c.charCodeAt(0)] = i;

/**
 * Decodes the base64url of little-endian 32-bit slots in `line[from, to)`
 * straight into `slots` (no string, no buffer: this runs once per tender);
 * the slot count, or -1 when the text is not that.
 */
function decodeSlots(line: Buffer, from: number, to: number, slots: Uint32Array): number {
  const chars = to - from;
  const bytes = Math.floor((chars * 6) / 8);
  if (bytes % 4 !== 0 || bytes / 4 > slots.length || chars % 4 === 1) return -1;
  let bits = 0;
  let buffered = 0;
  let byte = 0;
  slots.fill(0, 0, bytes / 4);
  for (let i = from; i < to; i++) {
    const value = BASE64URL[line[i]!]!;
    if (value === 255) return -1;
    bits = (bits << 6) | value;
    buffered += 6;
    if (buffered >= 8) {
      buffered -= 8;
      if (byte < bytes) slots[byte >> 2] = slots[byte >> 2]! | (((bits >> buffered) & 0xff) << ((byte & 3) * 8));
      byte++;
    }
  }
  return bytes / 4;
}

/**
 * The bytes of `ranges` ([start, end), in file order, not overlapping) in one
 * read through the file: [range number, piece] as the file goes by, a range
 * in several pieces when it spans reads.
 */
export async function* rangePieces(
  file: string,
  ranges: readonly (readonly [number, number])[],
  fs: FileSystem = nodeFs,
): AsyncGenerator<[number, Buffer]> {
  if (ranges.length === 0) return;
  let offset = ranges[0]![0];
  let r = 0;
  for await (const chunk of readChunks(fs, file, { start: offset, end: ranges.at(-1)![1] - 1, highWaterMark: 1 << 20 })) {
    const chunkEnd = offset + chunk.length;
    while (r < ranges.length && ranges[r]![0] < chunkEnd) {
      const [start, end] = ranges[r]!;
      const piece = chunk.subarray(Math.max(start, offset) - offset, Math.min(end, chunkEnd) - offset);
      if (piece.length > 0) yield [r, piece];
      if (end > chunkEnd) break;
      r++;
    }
    offset = chunkEnd;
  }
}

/**
 * What a line kept of a tender: its id, and each of KEPT_FIELDS it had (and
 * was kept); a `gone` row shows its title, deadline and URL (`all` false), a
 * `changed` one compares with all of them.
 */
export function keptTender(line: Buffer, all = false): Record<string, unknown> {
  const [id, , ...cells] = line.toString('utf8').split('\t');
  // Every digit of a long number id (or value), as the service wrote it.
  const tender: Record<string, unknown> = { id: parseExact(id!) };
  KEPT_FIELDS.slice(0, all ? KEPT_FIELDS.length : GONE_FIELDS).forEach((field, i) => {
    if (cells[i]) tender[field] = parseExact(cells[i]);
  });
  if (Array.isArray(tender.estimatedValue)) {
    const [amount, currency] = tender.estimatedValue as unknown[];
    tender.estimatedValue = Object.fromEntries(Object.entries({ amount, currency }).filter(([, v]) => v !== null && v !== undefined));
  }
  if (typeof tender.title === 'string' && tender.title.length === OLD_CUT && tender.title.endsWith('…')) delete tender.title; // cut by an older tenders
  if (Object.values(tender).some(holdsRawNumber)) markHolder(tender); // so formats write those digits
  return tender;
}

/** A state's header from its first line; StateError (naming `file`) when it is none. */
export function parseHeader(file: string, line: Buffer): StateHeader {
  const json = parseJson(line) as { tendersWatch?: unknown; name?: unknown; query?: SavedQuery; created?: unknown; service?: unknown; baseUrl?: unknown } | undefined;
  if (typeof json?.tendersWatch !== 'number') throw new StateError(file, 'is not a watch state');
  if (json.tendersWatch > STATE_FORMAT) {
    throw new StateError(file, `was written by a newer tenders (state format ${json.tendersWatch})`, { advice: 'upgrade tenders, or ' });
  }
  const query = json.query;
  const service = json.service ?? json.baseUrl; // a state written before the header said `service`
  if (
    typeof json.name !== 'string' ||
    typeof json.created !== 'string' ||
    !isObject(query) ||
    !isObject(query.body) ||
    !(query.org === null || typeof query.org === 'string') ||
    !(service === undefined || typeof service === 'string')
  ) {
    throw new StateError(file, 'has a damaged first line');
  }
  const header: StateHeader = { name: json.name, query: { org: query.org, body: query.body }, created: json.created };
  if (service !== undefined) header.service = service;
  return header;
}

function parseSummary(file: string, line: Buffer): StateSummary {
  const end = (parseJson(line) as { end?: StateSummary } | undefined)?.end;
  if (
    !isObject(end) ||
    typeof end.lastRun !== 'string' ||
    !Number.isSafeInteger(end.tenders) ||
    !(end.newestPublicationDate === null || typeof end.newestPublicationDate === 'string') ||
    !Array.isArray(end.fields) ||
    !end.fields.every((keys) => Array.isArray(keys) && keys.every((key) => typeof key === 'string'))
  ) {
    throw new StateError(file, 'is cut short or has a damaged last line');
  }
  return end;
}

/** A header or summary line; a saved --filter number keeps its digits. */
function parseJson(line: Buffer): unknown {
  try {
    return parseExact(line.toString('utf8'));
  } catch {
    return undefined;
  }
}
