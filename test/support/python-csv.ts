import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { scaled } from './scale.js';

/**
 * The system Python, which has the modules the readers use (csv, icalendar,
 * feedparser), called by its path: a version manager's shim first on PATH
 * (pyenv's) would cost 0.6 CPU-s a call, ten times Python's own start-up.
 * Where the system has none there, the python3 on PATH.
 */
export const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/** Reads CSV with Python's csv module: an independent, standard reader. */
export function readCsvWithPython(csv: string): string[][] {
  const out = execFileSync(PYTHON, ['-c', 'import csv,json,sys; print(json.dumps(list(csv.reader(sys.stdin))))'], {
    input: csv,
    encoding: 'utf8',
    timeout: scaled(30_000), // synchronous: a hang would block this worker
  });
  return JSON.parse(out) as string[][];
}
