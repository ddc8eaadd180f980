import { execFileSync } from 'node:child_process';
import { scaled } from './scale.js';

/** Reads CSV with Python's csv module: an independent, standard reader. */
export function readCsvWithPython(csv: string): string[][] {
  const out = execFileSync('python3', ['-c', 'import csv,json,sys; print(json.dumps(list(csv.reader(sys.stdin))))'], {
    input: csv,
    encoding: 'utf8',
    timeout: scaled(30_000), // synchronous: a hang would block this worker
  });
  return JSON.parse(out) as string[][];
}
