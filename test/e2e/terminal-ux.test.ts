import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../support/sandbox.js';
import { testDir } from '../support/test-context.js';
import { formatSize } from '../../src/model/numbers.js';
import { ndjson, runCli, runShell } from '../support/cli.js';
import { screen } from '../support/screen.js';
import { hasScript, shellInTerminal } from '../support/terminal.js';

/** What a person at an 80-column terminal sees: hints, the closing line, the spinner, colour. */

const PATH = '/api/v1/tenders/search';
const sb = useSandbox({ size: 5000, seed: 3 });

const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

describe.skipIf(!hasScript)('at an 80-column terminal', () => {
  it('search -n 1 | jq: the data and the hints, no spinner in between', async () => {
    const r = await shellInTerminal(sb.url, '$TENDERS search -n 1 | jq -r .id', { cols: 80 });
    expect(r.code).toBe(0);
    const first = sb.truth(PATH, {})[0] as { id: string };
    expect(r.screen).not.toMatch(SPINNER);
    // Two processes share the terminal: jq's line and the hints come in either order, each whole.
    const lines = screen(r.screen).split('\n');
    expect(lines).toHaveLength(4);
    expect(lines).toContain(first.id);
    expect(lines).toContain('Showing 1 of 5,000 tenders.');
  });

  it('a service that refuses: each retry shows one line that replaces the last, gone before the error; into cron only the error', async () => {
    const args = 'search -n 1 -f ndjson --base-url http://127.0.0.1:9 --retries 2';
    const r = await shellInTerminal(sb.url, `$TENDERS ${args} > /dev/null`, { cols: 80 });
    expect(r.code).toBe(1);
    // The spinner's line says it while it lasts; the screen keeps only the error.
    expect(r.screen).toMatch(/connection refused, retrying in 0\.\d s \(2 of 3\).*connection refused, retrying in \d\.\d s \(3 of 3\)/s);
    // The error is one line, wrapped between words at the terminal's width.
    expect(screen(r.screen).replace(/\n/g, ' ')).toMatch(/^tenders: cannot get POST .* connection refused .*\(gave up after 2 retries\)$/);
    const cron = await runCli(args.split(' '), sb.url);
    expect(cron.stderr).toMatch(/^tenders: cannot get POST [^\n]*\(gave up after 2 retries\)\n$/);
  });

  it('search\'s table through the pager: the retry line shows while nothing is paged yet, and is gone before the error', async () => {
    const r = await shellInTerminal(sb.url, '$TENDERS search -n 1 --base-url http://127.0.0.1:9 --retries 1', { cols: 80 });
    expect(r.code).toBe(1);
    expect(r.screen).toMatch(/connection refused, retrying in 0\.\d s \(2 of 2\)\u001b\[K\r\u001b\[K/);
    // While the pager runs (between less's keypad mode on and off), not when it has ended.
    expect(r.screen.indexOf('retrying in')).toBeGreaterThan(r.screen.indexOf('\u001b[?1h'));
    expect(r.screen.indexOf('retrying in')).toBeLessThan(r.screen.indexOf('\u001b[?1l'));
    // (less's keypad mode, ESC = and ESC >, is no text.)
    expect(screen(r.screen).replace(/^\u001b>/, '').replace(/\n/g, ' ')).toMatch(/^tenders: cannot get POST .*\(gave up after 1 retry\)$/);
  });

  it('the next-page hint is a command on its own line that runs as it is', async () => {
    const r = await shellInTerminal(sb.url, "$TENDERS search -n 3 -c deu --filter 'query=medizinischer Geräte' -f ndjson > /dev/null", { cols: 80 });
    const lines = screen(r.screen.replaceAll('\r\n', '\n')).split('\n');
    expect(lines.slice(0, 2)).toEqual([expect.stringMatching(/^Showing 1–3 of [\d,]+ tenders\.$/), 'Next page:']);
    // The terminal wraps the long line softly; the command itself has no line break.
    const command = r.screen.split('Next page:\r\n')[1]!.split('\r\n')[0]!;
    expect(command).toMatch(/^tenders search -n 3 -c deu --filter 'query=medizinischer Geräte' -f ndjson --cursor \S+ --shown 3$/);
    const next = await runShell(command.replace(/^tenders /, '$TENDERS '), sb.url);
    expect(ndjson(next.stdout)).toEqual(sb.truth(PATH, { buyerCountries: ['DEU'], query: 'medizinischer Geräte' }).slice(3, 6));
  });

  it('page 2 from the hint says Showing 4–6; search --max 4 gives the next-page hint too', async () => {
    const first = await shellInTerminal(sb.url, '$TENDERS search -n 3 -f ndjson > /dev/null', { cols: 80 });
    const command = first.screen.split('Next page:\r\n')[1]!.split('\r\n')[0]!;
    const second = await shellInTerminal(sb.url, `${command.replace(/^tenders /, '$TENDERS ')} > /dev/null`, { cols: 80 });
    expect(screen(second.screen.replaceAll('\r\n', '\n')).split('\n')[0]).toBe('Showing 4–6 tenders.');
    const max = await shellInTerminal(sb.url, '$TENDERS search --max 4 -f ndjson > /dev/null', { cols: 80 });
    expect(screen(max.screen.replaceAll('\r\n', '\n'))).toMatch(/^Showing 1–4 of 5,000 tenders\.\nNext page:\ntenders search --max 4 -f ndjson --cursor \S+ --shown 4/);
  });

  it('export -o FILE ends with one line: rows, file, size, time; nothing with -q', async () => {
    const file = join(testDir(), 'open.csv');
    const r = await shellInTerminal(sb.url, `$TENDERS export -s open -o ${file}`, { cols: 80 });
    expect(r.code).toBe(0);
    const rows = sb.truth(PATH, { statuses: ['open'] }).length;
    const size = formatSize(statSync(file).size);
    expect(screen(r.screen)).toMatch(new RegExp(`^Wrote ${rows.toLocaleString('en-US')} tenders to ${file} \\(${size.replace('.', '\\.')}\\) in \\d+\\.\\d s\\.$`));
    const quiet = await shellInTerminal(sb.url, `$TENDERS export -s open -o ${file} -q`, { cols: 80 });
    expect(quiet.screen).toBe('');
  });

  it('the spinner runs while rows go to a redirect, and leaves the screen clean', async () => {
    const file = join(testDir(), 'redirected.csv');
    const r = await shellInTerminal(sb.url, `$TENDERS export --max 3000 > ${file}`, { cols: 80 });
    expect(r.code).toBe(0);
    expect(r.screen).toMatch(/[\d,]+ of [\d,]+ tenders, \d+ pages?, [\d,]+\/s/);
    expect(screen(r.screen)).toBe('');
    expect(readFileSync(file, 'utf8')).toBe((await runCli(['export', '--max', '3000'], sb.url)).stdout);
  });
});

describe('colour and animation, end to end', () => {
  const BOLD = '\u001b[1mid';

  it.each([
    ['--color always into a pipe', ['--color', 'always'], {}, true],
    ['FORCE_COLOR=1 into a pipe', [], { FORCE_COLOR: '1' }, true],
    ['--color always over FORCE_COLOR=0 and NO_COLOR', ['--color', 'always'], { FORCE_COLOR: '0', NO_COLOR: '1' }, true],
    ['NO_COLOR over FORCE_COLOR', [], { FORCE_COLOR: '1', NO_COLOR: '1' }, false],
    ['a pipe by default', [], {}, false],
  ])('%s: a table with bold headers %s', async (_what, flags, env, bold) => {
    const r = await runCli(['search', '-n', '2', '-f', 'table', ...flags], sb.url, { env: { NO_COLOR: undefined, ...env } });
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith(BOLD)).toBe(bold);
    if (!bold) expect(r.stdout).not.toContain('\u001b[');
  });

  it.skipIf(!hasScript).each([
    ['by default', [], {}, true],
    ['NO_COLOR', [], { NO_COLOR: '1' }, false],
    ['FORCE_COLOR=0', [], { FORCE_COLOR: '0' }, false],
    ['--color never', ['--color', 'never'], {}, false],
    ['TERM=dumb', [], { TERM: 'dumb' }, false],
  ])('on a terminal, %s: bold headers %s', async (_what, flags, env, bold) => {
    const r = await shellInTerminal(sb.url, `$TENDERS search -n 2 --no-pager ${flags.join(' ')}`, { cols: 80, env: { NO_COLOR: undefined, ...env } });
    expect(r.code).toBe(0);
    expect(r.screen.includes(BOLD)).toBe(bold);
  });

  it.skipIf(!hasScript)('TERM=dumb on a terminal: no spinner, no escape sequence, only the closing line', async () => {
    const file = join(testDir(), 'dumb.csv');
    const r = await shellInTerminal(sb.url, `$TENDERS export --max 3000 -o ${file}`, { cols: 80, env: { TERM: 'dumb', NO_COLOR: undefined } });
    expect(r.code).toBe(0);
    expect(r.screen).not.toContain('\u001b');
    expect(r.screen).toMatch(/^Wrote 3,000 tenders to \S+ \([\d.]+ [kM]B\) in \d+\.\d s\.\r\n$/);
  });
});
