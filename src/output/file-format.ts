import { extname } from 'node:path';
import type { Format } from './formatter.js';

/** The formats a file name's extension implies. */
export const FILE_EXTENSIONS: Readonly<Record<string, Format>> = { '.csv': 'csv', '.ndjson': 'ndjson', '.jsonl': 'ndjson', '.json': 'json' };

/** The format `file`'s extension names (case-insensitive), if it names one. */
export function formatOfFile(file: string): Format | undefined {
  const ext = extname(file).toLowerCase();
  return Object.hasOwn(FILE_EXTENSIONS, ext) ? FILE_EXTENSIONS[ext] : undefined;
}
