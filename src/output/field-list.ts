import type { FormatTraits } from './format-definition.js';
import { createFormatter } from './formatter.js';
import { compilePaths, discoverPaths, valueAt } from '../model/paths.js';

/**
 * How `tenders fields` prints, a listing of its own rather than rows of the
 * data: a table for a person (the registry's table), `path<TAB>example` lines
 * for a program, or one JSON document; and how each is made safe on a terminal.
 */
const FIELD_LIST_TERMINAL = { table: 'self', tsv: 'text', json: 'json' } as const satisfies Record<string, FormatTraits['terminal']>;
export type FieldListFormat = keyof typeof FIELD_LIST_TERMINAL;
export const FIELD_LIST_FORMATS = Object.keys(FIELD_LIST_TERMINAL) as FieldListFormat[];

export interface Field {
  /** A dot path for --columns. */
  path: string;
  /** The first value of the sample that says something (not null, "", [] or {}); else null. */
  example: unknown;
}

/** Every leaf dot path of `items`, in order of first appearance, with an example value. */
export function fieldsOf(items: readonly Record<string, unknown>[]): Field[] {
  return discoverPaths(items).map((path) => {
    const compiled = compilePaths([path])[0]!;
    for (const item of items) {
      const value = valueAt(item, compiled);
      if (!isBlank(value)) return { path, example: value };
    }
    return { path, example: null };
  });
}

function isBlank(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

export interface FieldListTerminal {
  /** Width to fit the table to (undefined: as wide as the data). */
  width?: number;
  color: boolean;
  /** stdout is a terminal: TSV and JSON get their controls spelled out (the table cleans its cells). */
  terminal?: boolean;
}

/**
 * The fields as text. TSV examples are JSON (strings quoted, one line
 * whatever they hold), so `cut -f1` gives the paths and nothing can break a
 * line; the table shows them as the other tables show cells.
 */
export async function renderFields(fields: readonly Field[], format: FieldListFormat, terminal: FieldListTerminal): Promise<string> {
  const text = await fieldsText(fields, format, terminal);
  const safety = FIELD_LIST_TERMINAL[format];
  if (!terminal.terminal || safety === 'self') return text;
  const { neutralizeForTerminal } = await import('./terminal/sanitize.js');
  return neutralizeForTerminal(text, safety === 'json');
}

async function fieldsText(fields: readonly Field[], format: FieldListFormat, terminal: FieldListTerminal): Promise<string> {
  if (format === 'json') return `${JSON.stringify(fields, null, 2)}\n`;
  if (format === 'tsv') return fields.map((f) => `${f.path}\t${JSON.stringify(f.example)}\n`).join('');
  const table = await createFormatter('table', {
    defaultColumns: [
      { path: 'path', header: 'field', priority: 2 },
      { path: 'example', header: 'example', priority: 1, cut: 10 },
    ],
    header: true,
    headerStyle: 'path',
    excelSafe: false,
    width: terminal.width,
    color: terminal.color,
  });
  return table.page(fields as unknown as Record<string, unknown>[]) as string;
}
