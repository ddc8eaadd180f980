import { extname } from 'node:path';
import type { Format } from './formatter.js';

/** The formats a file name's extension implies. */
export const FILE_EXTENSIONS: Readonly<Record<string, Format>> = {
  '.csv': 'csv',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.json': 'json',
  '.tsv': 'tsv',
  '.ics': 'ics',
  '.atom': 'atom',
  '.ocds.json': 'ocds',
  '.parquet': 'parquet',
};

/** The format `file`'s extension names (case-insensitive), if it names one; `.ocds.json` before `.json`. */
export function formatOfFile(file: string): Format | undefined {
  const lower = file.toLowerCase();
  if (lower.endsWith('.ocds.json')) return 'ocds';
  const ext = extname(lower);
  return Object.hasOwn(FILE_EXTENSIONS, ext) ? FILE_EXTENSIONS[ext] : undefined;
}
