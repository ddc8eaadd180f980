import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { formatSize } from '../../src/output/numbers.js';
import { ndjson, runCli, runShell } from '../support/cli.js';
import { screen } from '../support/screen.js';
import { hasScript, shellInTerminal } from '../support/terminal.js';

/** What a person at an 80-column terminal sees: hints, the closing line, the spinner, colour. */

const PATH = '/api/v1/tenders/search';
let sb: Sandbox;
let dir: string;

beforeAll(async () => {
  sb = await startSandbox({ size: 5000, seed: 3 });
  dir = mkdtempSync(join(tmpdir(), 'tenders-terminal-ux-'));
});
afterAll(() => sb.close());

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
    expect(lines).toContain('Showing 1–1 of 5,000 tenders.');
  });

  it('the next-page hint is a command on its own line that runs as it is', async () => {
    const r = await shellInTerminal(sb.url, "$TENDERS search -n 3 -c deu --filter 'query=medizinischer Geräte' -f ndjson > /dev/null", { cols: 80 });
    const lines = screen(r.screen.replaceAll('\r\n', '\n')).split('\n');
    expect(lines.slice(0, 2)).toEqual([expect.stringMatching(/^Showing 1–3 of [\d,]+ tenders\.$/), 'Next page:']);
    // The terminal wraps the long line softly; the command itself has no line break.
    const command = r.screen.split('Next page:\r\n')[1]!.split('\r\n')[0]!;
    expect(command).toMatch(/^tenders search -n 3 -c deu --filter 'query=medizinischer Geräte' -f ndjson --cursor \S+$/);
    const next = await runShell(command.replace(/^tenders /, '$TENDERS '), sb.url);
    expect(ndjson(next.stdout)).toEqual(sb.truth(PATH, { buyerCountries: ['DEU'], query: 'medizinischer Geräte' }).slice(3, 6));
  });

  it('export -o FILE ends with one line: rows, file, size, time; nothing with -q', async () => {
    const file = join(dir, 'open.csv');
    const r = await shellInTerminal(sb.url, `$TENDERS export -s open -o ${file}`, { cols: 80 });
    expect(r.code).toBe(0);
    const rows = sb.truth(PATH, { statuses: ['open'] }).length;
    const size = formatSize(statSync(file).size);
    expect(screen(r.screen)).toMatch(new RegExp(`^Wrote ${rows.toLocaleString('en-US')} tenders to ${file} \\(${size.replace('.', '\\.')}\\) in \\d+\\.\\d s\\.$`));
    const quiet = await shellInTerminal(sb.url, `$TENDERS export -s open -o ${file} -q`, { cols: 80 });
    expect(quiet.screen).toBe('');
  });

  it('the spinner runs while rows go to a redirect, and leaves the screen clean', async () => {
    const file = join(dir, 'redirected.csv');
    const r = await shellInTerminal(sb.url, `$TENDERS export --max 3000 > ${file}`, { cols: 80 });
    expect(r.code).toBe(0);
    expect(r.screen).toMatch(/[\d,]+ of [\d,]+ tenders, \d+ pages, [\d,]+\/s/);
    expect(screen(r.screen)).toBe('');
    expect(readFileSync(file, 'utf8')).toBe((await runCli(['export', '--max', '3000'], sb.url)).stdout);
  });
});
