import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { nextPageCommand, withoutCursor } from '../../src/commands/flag-plans.js';
import { formatDuration, formatSize } from '../../src/model/numbers.js';
import { progressLine } from '../../src/output/terminal/progress.js';
import { shellLine, shellQuote } from '../../src/output/terminal/shell.js';
import { pagedTenders } from '../support/fake-client.js';
import { runInProcess } from '../support/run.js';
import { screen } from '../support/screen.js';

/** What a person at a terminal sees on stderr besides the data: hints, the closing line, the spinner. */

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tenders-walk-terminal-'));
});

const terminal = { stderrTTY: true, columns: 80, env: { NO_COLOR: '1' } };

describe('the next-page hint', () => {
  it('is the command to run, on its own line, with the same flags and the next cursor', async () => {
    const r = await runInProcess(['search', '-n', '5', '--filter', 'query=st. josef', '-c', 'deu'], pagedTenders(30), terminal);
    expect(r.code).toBe(0);
    expect(screen(r.stderr)).toBe("Showing 1–5 of 30 tenders.\nNext page:\ntenders search -n 5 --filter 'query=st. josef' -c deu --cursor c5 --shown 5");
  });

  it('replaces the --cursor it was given, in either spelling; orgs commands keep their words', async () => {
    const spaced = await runInProcess(['search', '--cursor', 'c5', '-n', '5'], pagedTenders(30), terminal);
    expect(screen(spaced.stderr)).toMatch(/\ntenders search -n 5 --cursor c10$/);
    const joined = await runInProcess(['--retries', '0', 'orgs', 'tenders', 'ORG 1', '--cursor=c10', '-n', '5'], pagedTenders(30), terminal);
    expect(screen(joined.stderr)).toMatch(/\ntenders --retries 0 orgs tenders 'ORG 1' -n 5 --cursor c15$/);
  });

  it('is not given on the last page, nor without a terminal', async () => {
    expect(screen((await runInProcess(['search', '-n', '30'], pagedTenders(30), terminal)).stderr)).toBe('Showing 1–30 of 30 tenders.');
    expect((await runInProcess(['search', '-n', '5'], pagedTenders(30))).stderr).toBe('');
  });
});

describe('the closing line of -o FILE', () => {
  it('says rows, file, size and time on a terminal', async () => {
    const file = join(dir, 'open.csv');
    const r = await runInProcess(['export', '-o', file], pagedTenders(250), terminal);
    expect(r.code).toBe(0);
    const size = Buffer.byteLength(await readFile(file));
    expect(screen(r.stderr)).toMatch(new RegExp(`^Wrote 250 tenders to ${file} \\(${formatSize(size).replace('.', '\\.')}\\) in \\d+\\.\\d s\\.$`));
  });

  it('is not printed in cron (stderr not a terminal) nor with -q', async () => {
    expect((await runInProcess(['export', '-o', join(dir, 'a.csv')], pagedTenders(5))).stderr).toBe('');
    expect((await runInProcess(['export', '-o', join(dir, 'b.csv'), '-q'], pagedTenders(5), terminal)).stderr).toBe('');
  });

  it('says how many rows an interrupted run had written when it continues one', async () => {
    const file = join(dir, 'r.csv');
    let fail = true;
    const flaky = pagedTenders(250);
    const interrupted = await runInProcess(['export', '-o', file, '--retries', '0'], (req, n) =>
      n === 2 && fail ? { status: 400, json: { message: 'no' } } : flaky(req, n),
    );
    expect(interrupted.code).toBe(1);
    fail = false;
    const resumed = await runInProcess(['export', '-o', file, '--resume'], flaky, terminal);
    expect(screen(resumed.stderr)).toMatch(/^Wrote 250 tenders to .* in \d+\.\d s, continuing after 100 written before\.$/);
  });
});

describe('the spinner', () => {
  it('runs on the terminal while rows go to a file or a redirect, never when stdout is a pipe or the terminal', async () => {
    const toFile = await runInProcess(['export', '-o', join(dir, 's.csv')], pagedTenders(5), terminal);
    expect(toFile.stderr).toContain('Fetching tenders…');
    const redirected = await runInProcess(['export'], pagedTenders(5), terminal);
    expect(redirected.stderr).toContain('Fetching tenders…');
    const piped = await runInProcess(['search'], pagedTenders(5), { ...terminal, stdoutPipe: true });
    expect(piped.stderr).toBe('Showing 1–5 of 5 tenders.\n');
    const shown = await runInProcess(['search', '--all'], pagedTenders(5), { ...terminal, stdoutTTY: true });
    expect(shown.stderr).not.toContain('Fetching');
    const dumb = await runInProcess(['export', '-o', join(dir, 'd.csv')], pagedTenders(5), { ...terminal, env: { TERM: 'dumb' } });
    expect(dumb.stderr).not.toContain('Fetching');
  });

  it("rates only this run's rows: a resumed export's earlier rows count in the total, not in the rate", () => {
    const counts = { pages: 276, rows: 27_600, total: { count: 10_000, capped: true } };
    expect(progressLine(counts, 'tenders', 600, 2)).toBe('27,600 tenders (10,000+ match), 276 pages, 300/s'); // never "27,600 of 10,000+"
    expect(progressLine({ pages: 2, rows: 150, total: { count: 1234, capped: false } }, 'tenders', 150, 1)).toBe('150 of 1,234 tenders, 2 pages, 150/s');
    expect(progressLine({ pages: 0, rows: 0, total: null }, 'tenders', 0, 0)).toBe('0 tenders, 0 pages, 0/s');
  });
});

describe('helpers', () => {
  it('withoutCursor drops --cursor and its value, but not after --', () => {
    expect(withoutCursor(['search', '--cursor', 'x', '-n', '5', '--cursor=y', '--', '--cursor', 'z'])).toEqual(['search', '-n', '5', '--', '--cursor', 'z']);
  });

  it('nextPageCommand repeats the command without its cursor and without a password', () => {
    const argv = ['search', '--local', '--db', 'postgres://alice:s3cret@db/t', '--cursor', 'x', '--shown', '20'];
    expect(nextPageCommand({ argv, invocation: ['tenders'] })).toEqual(['tenders', 'search', '--local', '--db', 'postgres://alice@db/t']);
    expect(nextPageCommand({ argv: [] })).toBeUndefined();
  });

  it('shellLine quotes only what a shell would split or expand', () => {
    expect(shellLine(['tenders', 'a.b/c=d,e', "it's", 'two words', '$HOME', ''])).toBe(`tenders a.b/c=d,e 'it'\\''s' 'two words' '$HOME' ''`);
    expect(shellQuote("c\u001b[2J\n'\\")).toBe(`$'c\\x1b[2J\\n\\'\\\\'`);
  });

  it('a quoted word reads back the same through bash', () => {
    for (const word of ["c\u001b[2J\n'\\x", "it's", 'a b', '$HOME', 'x\u202ey', 'plain']) {
      expect(execFileSync('bash', ['-c', `printf %s ${shellQuote(word)}`]).toString()).toBe(word);
    }
  });

  it('formatSize and formatDuration read like ls --si and a stopwatch', () => {
    expect([999, 1000, 1_234_567, 5_000_000_000].map(formatSize)).toEqual(['999 B', '1.0 kB', '1.2 MB', '5.0 GB']);
    expect([3140, 59_940, 252_000].map(formatDuration)).toEqual(['3.1 s', '59.9 s', '4 min 12 s']);
  });
});
