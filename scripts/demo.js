#!/usr/bin/env node
// npm run demo: start the bundled sandbox, run a search and an export against it; then, at a
// terminal, sync a local copy from it (twice, the sandbox's data changing in between, so the
// copy has a history) and serve the page over that copy until Ctrl-C. `--no-serve`, or a stdin
// that is not a terminal (CI, a pipe), stops after the export; `--serve` serves anyway (the
// tests). Ctrl-C stops the server and the sandbox and removes the temporary files.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mutate, startSandbox, startServe, tenders } from './sandbox-copy.js';

const args = process.argv.slice(2);
const serving = args.includes('--serve') || (!args.includes('--no-serve') && process.stdin.isTTY === true);

// Ctrl-C reaches our children too (one process group); we only wait for them and clean up.
let interrupted = false;
const interruption = new Promise((resolve) => {
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => resolve((interrupted = true)));
});

const sandbox = await startSandbox();
const dir = mkdtempSync(join(tmpdir(), 'tenders-demo-'));
let server;
let served = false;
let failed = false;
const show = (title, command) => {
  console.log(`\n$ tenders ${command.join(' ')}    # ${title}`);
  tenders(sandbox.url, command);
};

try {
  console.log(`Sandbox service running at ${sandbox.url} (TENDERS_BASE_URL)`);
  show('a readable table', ['search', '--country', 'DEU,AUT', '--status', 'open', '--sort', 'deadline', '-n', '10', '--format', 'table']);
  show('how many match', ['count', '--status', 'open']);
  const file = join(dir, 'open-tenders.csv');
  show('every open tender, atomically into a file', ['export', '--status', 'open', '-o', file]);
  const records = csvRecords(readFileSync(file, 'utf8'));
  // Rows, not lines: titles with line breaks span several lines of the file.
  console.log(`\n${file}: ${records.length - 1} rows (the count above) and a header; the first ones:`);
  console.log(records.slice(0, 4).join('\n'));

  if (serving) {
    const db = join(dir, 'tenders.db');
    show('a local copy of every tender, with its history', ['sync', 'demo', '--db', db]);
    const changed = await mutate(sandbox.url, { insert: 5, update: 8, close: 3, remove: 2, seed: 7 });
    console.log(`\n(the sandbox's data changes: ${changed.inserted.length} new, ${changed.updated.length} changed, ${changed.closed.length} closed, ${changed.removed.length} gone)`);
    show('the same sync again: it records what changed', ['sync', 'demo', '--db', db]);
    console.log(`\n$ tenders serve --db ${db}    # the page over the copy, for colleagues who never open a terminal`);
    server = await startServe(db);
    console.log(`\nThe page: ${server.url}/  (search, a tender's history at ${server.url}/tenders/${changed.updated[0]}, /changes, /syncs)`);
    console.log('Ctrl-C stops the page and the sandbox.');
    // Ctrl-C at the terminal reaches the server as well, which then exits 0 by itself.
    await Promise.race([interruption, server.exited.then(([code]) => { if (code !== 0) throw new Error(`tenders serve exited (${code})`); })]);
    served = true;
  }
} catch (err) {
  // A command stopped by Ctrl-C says so by its exit (130) before our own handler has run.
  if (err.status === 130 || err.signal === 'SIGINT') interrupted = true;
  if (!interrupted) {
    console.error(`demo: ${err.message}`);
    failed = true;
  }
} finally {
  await server?.stop();
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
}
// Ctrl-C is how the serving demo ends (0); before that, it interrupted the demo (130).
process.exitCode = failed ? 1 : interrupted && !served ? 130 : 0;

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
