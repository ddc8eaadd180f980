import { normalizeCpvCode } from '../../model/cpv.js';
import { isObject, stringifyExact } from '../../model/exact-json.js';
import { readInstant } from '../../model/instant.js';
import { countdown } from './countdown.js';
import { cellText } from '../../model/paths.js';
import { sanitizeForTerminal } from './sanitize.js';
import { wrapWords } from './wrap.js';

/** A change of the tender, as its history shows it (a row of the copy's `changes`). */
export interface ViewChange {
  at: string;
  sync: string;
  kind: 'new' | 'changed' | 'gone';
  field: string | null;
  old?: unknown;
  new?: unknown;
}

/** What the local copy knows of the tender's life. */
export interface TenderHistory {
  firstSeen: string;
  goneAt: string | null;
  syncs: string[];
  changes: ViewChange[];
}

export interface TenderViewOptions {
  /** Columns to wrap long text at; undefined: no wrapping (a pipe, a file). */
  width: number | undefined;
  now: Date;
  /** Where the tender's CPV codes are (dot paths, an array on the way entered item by item: model/cpv.ts tenderCpvCodes), and the name of a code. */
  cpvPaths: readonly string[];
  cpvName(code: string): string | undefined;
}

/** One line of the list before alignment: its depth, label and value (no value: a heading of what follows). */
interface Row {
  depth: number;
  label: string;
  value?: string;
}

const INDENT = 2;
const GAP = 2;
/** Labels longer than this push their value to the next line rather than every value to the right. */
const LABEL_MAX = 28;

/**
 * `tenders show`: one tender as an aligned list, every field of the document
 * (objects indented, arrays numbered, long text wrapped), CPV codes with their
 * names, the deadline with a countdown; then its history in the local copy.
 * Text from the service is cleaned as table cells are.
 */
export function renderTenderView(tender: Record<string, unknown>, history: TenderHistory, opts: TenderViewOptions): string {
  const rows: Row[] = [];
  // `path`: the field's dot path, its array items' numbers left out (`lots.cpv` for every lot's cpv).
  const addValue = (depth: number, label: string, value: unknown, path: string) => {
    if (Array.isArray(value) && value.length > 0) {
      rows.push({ depth, label });
      value.forEach((item, i) => addValue(depth + 1, String(i + 1), item, path));
    } else if (isObject(value) && Object.keys(value).length > 0) {
      rows.push({ depth, label });
      for (const [key, inner] of Object.entries(value)) addValue(depth + 1, key, inner, `${path}.${key}`);
    } else rows.push({ depth, label, value: scalarText(value, path, opts) });
  };
  for (const [key, value] of Object.entries(tender)) addValue(0, key, value, key);
  const lines = layout(rows, opts.width);
  lines.push('', 'history in the local copy', ...layout(historyRows(history), opts.width));
  return `${lines.join('\n')}\n`;
}

/** A leaf's text: a CPV code with its name, the deadline with its countdown, service text cleaned. */
function scalarText(value: unknown, path: string, opts: TenderViewOptions): string {
  if (Array.isArray(value)) return '(none)';
  if (isObject(value)) return '(none)';
  if (value === null) return 'null';
  const text = sanitizeForTerminal(cellText(value));
  if (typeof value !== 'string') return text;
  if (opts.cpvPaths.includes(path)) {
    const code = normalizeCpvCode(value);
    const name = code === undefined ? undefined : opts.cpvName(code);
    return name === undefined ? text : `${text}  ${name}`;
  }
  if (path === 'deadline') {
    const instant = readInstant(value);
    if (instant) return `${dateText(instant.ms, instant.dateOnly)} (${countdown(instant.ms, opts.now.getTime())})`;
  }
  return text;
}

/** `2026-04-01 12:00 UTC`, or the day alone for a date without a time. */
function dateText(ms: number, dateOnly: boolean): string {
  const iso = new Date(ms).toISOString();
  return dateOnly ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

function historyRows(history: TenderHistory): Row[] {
  const rows: Row[] = [
    { depth: 1, label: 'first seen', value: history.firstSeen },
    { depth: 1, label: 'syncs', value: history.syncs.join(', ') || '(none)' },
  ];
  for (const change of history.changes) {
    const what =
      change.kind === 'changed'
        ? `${sanitizeForTerminal(change.field ?? '')}: ${changeValue(change.old)} → ${changeValue(change.new)}`
        : change.kind === 'new'
          ? 'new (listed again)'
          : 'gone (no longer listed)';
    rows.push({ depth: 1, label: change.at, value: `${what}  [${change.sync}]` });
  }
  rows.push({ depth: 1, label: 'gone', value: history.goneAt ?? 'no, the service lists it' });
  return rows;
}

/** A changed field's value: absent as (none), objects as JSON, text cleaned. */
function changeValue(value: unknown): string {
  if (value === undefined) return '(none)';
  return sanitizeForTerminal(typeof value === 'string' ? value : stringifyExact(value));
}

/** The rows as lines: values aligned after the labels, long values wrapped under their own column. */
function layout(rows: readonly Row[], width: number | undefined): string[] {
  const labelWidth = Math.min(LABEL_MAX, Math.max(0, ...rows.map((row) => row.depth * INDENT + row.label.length)));
  const valueAt = labelWidth + GAP;
  const lines: string[] = [];
  for (const row of rows) {
    const label = `${' '.repeat(row.depth * INDENT)}${sanitizeForTerminal(row.label)}`;
    if (row.value === undefined) {
      lines.push(label);
      continue;
    }
    const room = width === undefined ? Infinity : Math.max(20, width - valueAt);
    const wrapped = row.value === '' ? [''] : wrapWords(row.value, room);
    const first = label.length > labelWidth ? [label, ' '.repeat(valueAt) + wrapped[0]] : [label.padEnd(valueAt) + wrapped[0]];
    lines.push(...first, ...wrapped.slice(1).map((line) => ' '.repeat(valueAt) + line));
  }
  return lines.map((line) => line.trimEnd());
}
