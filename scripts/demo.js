#!/usr/bin/env node
// npm run demo: start the bundled sandbox, run a search and an export against it, stop it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const sandbox = spawn(process.execPath, [join(root, 'bin/tenders-sandbox.js'), '--port', '0', '--size', '5000', '--seed', '1'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise((resolve, reject) => {
  sandbox.on('exit', (code) => reject(new Error(`the sandbox exited (${code}) before it was ready`)));
  createInterface({ input: sandbox.stdout }).once('line', resolve);
});

const dir = mkdtempSync(join(tmpdir(), 'tenders-demo-'));
const env = { ...process.env, TENDERS_BASE_URL: url };
const tenders = (title, args) => {
  console.log(`\n$ tenders ${args.join(' ')}    # ${title}`);
  const r = spawnSync(process.execPath, [join(root, 'bin/tenders.js'), ...args], { env, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`tenders exited with ${r.status}`);
};

try {
  console.log(`Sandbox service running at ${url} (TENDERS_BASE_URL)`);
  tenders('a readable table', ['search', '--country', 'DEU,AUT', '--status', 'open', '--sort', 'deadline', '-n', '10', '--format', 'table']);
  tenders('how many match', ['count', '--status', 'open']);
  const file = join(dir, 'open-tenders.csv');
  tenders('every open tender, atomically into a file', ['export', '--status', 'open', '-o', file]);
  const records = csvRecords(readFileSync(file, 'utf8'));
  // Rows, not lines: titles with line breaks span several lines of the file.
  console.log(`\n${file}: ${records.length - 1} rows (the count above) and a header; the first ones:`);
  console.log(records.slice(0, 4).join('\n'));
} finally {
  sandbox.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}

/** The records of a CSV text: rows end at a line break outside quotes (RFC 4180). */
function csvRecords(text) {
  const records = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') quoted = !quoted;
    else if (text[i] === '\n' && !quoted) {
      records.push(text.slice(start, i));
      start = i + 1;
    }
  }
  return records;
}
