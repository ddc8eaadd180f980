import { spawn, spawnSync } from 'node:child_process';
import { openSync, closeSync, readFileSync, existsSync, lstatSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../support/sandbox.js';
import { testDir } from '../support/test-context.js';
import { BIN, cliEnv, ndjson, runCli } from '../support/cli.js';
import { hasScript, inTerminal as inTerminalAt, spawnAsync } from '../support/terminal.js';

const PATH = '/api/v1/tenders/search';
const sb = useSandbox({ size: 20000, seed: 12 });

const run = spawnAsync;
// The bytes the CLI itself sends the terminal: no pager in between (test/e2e/table.test.ts tests the pager).
const inTerminal = (args: string[], env: Record<string, string | undefined> = {}) =>
  inTerminalAt(sb.url, args, { env: { TENDERS_PAGER: 'cat', ...env } });

describe.skipIf(!hasScript)('in a terminal', () => {
  it('breaks an error line between words at the width of the terminal, never inside one; one line into a pipe', async () => {
    const args = ['search', '--base-url', 'http://127.0.0.1:9', '--retries', '0', '--locl', '-c', 'DEU'];
    const r = await inTerminalAt(sb.url, args, { cols: 40 });
    expect(r.code).toBe(2);
    const lines = r.text.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40);
    const piped = await runCli(args, sb.url);
    expect(piped.stderr).toBe("tenders: unknown option '--locl' (Did you mean --local?) (see 'tenders search --help')\n");
    expect(lines.join(' ')).toBe(piped.stderr.trimEnd());
    // A failure while running too.
    const refused = await inTerminalAt(sb.url, ['search', '--base-url', 'http://127.0.0.1:9', '--retries', '0', '-n', '1'], { cols: 40 });
    expect(refused.code).toBe(1);
    const said = refused.text.trimEnd().split('\n').filter((line) => line.trim() !== '');
    expect(said[0]).toMatch(/^tenders: /);
    for (const line of said) expect(line.length).toBeLessThanOrEqual(40);
  });

  it('search shows a bold-headed table and the hints; NO_COLOR turns the bold off', async () => {
    const r = await inTerminal(['search', '-n', '3'], { NO_COLOR: undefined });
    expect(r.code).toBe(0);
    expect(r.screen).toContain('\u001b[1mid');
    expect(r.screen).toMatch(/Showing 1–3 of 10,000\+ tenders\./);
    expect(r.screen).toMatch(/Next page:\r\ntenders search -n 3 --cursor \S+/);
    const plain = await inTerminal(['search', '-n', '3'], { NO_COLOR: '1' });
    expect(plain.screen).not.toContain('\u001b[1m');
  });

  it('export -o FILE shows a spinner with rows, total, pages and rate on the terminal, and nothing else', async () => {
    const file = join(testDir(), 'spun.csv');
    const r = await inTerminal(['export', '--max', '3000', '-o', file], { NO_COLOR: undefined });
    expect(r.code).toBe(0);
    expect(r.screen).toMatch(/[\d,]+ tenders \(10,000\+ match\), \d+ pages?, [\d,]+\/s/);
    expect(readFileSync(file, 'utf8')).toBe((await runCli(['export', '--max', '3000'], sb.url)).stdout);
    const quiet = await inTerminal(['export', '--max', '3000', '-o', file, '-q']);
    expect(quiet.screen).toBe('');
  });

  it('search -o FILE writes NDJSON without colour, whatever the terminal', async () => {
    const file = join(testDir(), 'page.ndjson');
    const r = await inTerminal(['search', '-n', '5', '-o', file]);
    expect(r.code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('\u001b');
    expect(ndjson(text)).toEqual(sb.truth(PATH, {}).slice(0, 5));
  });
});

describe.skipIf(!hasScript)('terminal safety in every format', () => {
  const args = (format: string) => ['export', '--max', '20', '--columns', 'id,title', '-f', format];
  // What may drive a terminal; the pty turns each LF into CR LF, so those pairs are the line ends.
  const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

  it.each([
    ['csv', '\\x1b[31mURGENT\\x1b[0m repair of the \\x1b]0;pwned\\x07 old bridge', 'a bell\\x07 and CSI \\x9b2J'],
    ['ndjson', '\\u001b[31mURGENT\\u001b[0m repair of the \\u001b]0;pwned\\u0007 old bridge', 'a bell\\u0007 and CSI \\u009b2J'],
    ['json', '\\u001b[31mURGENT\\u001b[0m repair of the \\u001b]0;pwned\\u0007 old bridge', 'a bell\\u0007 and CSI \\u009b2J'],
  ])('%s on a terminal shows control characters spelled out; piped, the bytes are the service\'s', async (format, title, bell) => {
    const r = await inTerminal(args(format));
    expect(r.code).toBe(0);
    const screen = r.screen.replace(/\r\n/g, '\n');
    expect(screen).not.toMatch(RAW_CONTROL);
    expect(screen).toContain(title);
    expect(screen).toContain(bell);
    const piped = await runCli(args(format), sb.url);
    const truth = (sb.truth(PATH, {}) as Record<string, unknown>[]).slice(0, 20).map((t) => ({ id: t.id, title: t.title }));
    if (format === 'csv') expect(piped.stdout).toContain('\u001b[31mURGENT\u001b[0m repair of the \u001b]0;pwned\u0007 old bridge');
    else expect(format === 'json' ? JSON.parse(piped.stdout) : ndjson(piped.stdout)).toEqual(truth);
    if (format !== 'csv') expect(format === 'json' ? JSON.parse(screen) : ndjson(screen)).toEqual(truth);
  });

  it('-o a link to the terminal (/proc/self/fd/1) writes through it as a terminal, neutralised, the link kept', async () => {
    const link = join(testDir(), 'to-stdout');
    symlinkSync('/proc/self/fd/1', link);
    const r = await inTerminal([...args('csv'), '-o', link]);
    expect(r.code).toBe(0);
    expect(r.screen.replace(/\r\n/g, '\n')).not.toMatch(RAW_CONTROL);
    expect(r.screen).toContain('\\x1b[31mURGENT\\x1b[0m repair of the \\x1b]0;pwned\\x07 old bridge');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it('text from the service in a tenders: line is spelled out, on a terminal and in a pipe', async () => {
    const filter = ['export', '--filter', 'x\u001b]0;pwned\u0007=1'];
    const line = `tenders: the service answered 400 to POST ${PATH}: unknown field: x\\x1b]0;pwned\\x07`;
    expect((await runCli(filter, sb.url)).stderr).toBe(`${line}\n`);
    const shown = await inTerminal(filter);
    expect(shown.code).toBe(1);
    expect(shown.screen).toBe(`${line}\r\n`);
  });
});

describe('output that cannot be written', () => {
  it.skipIf(!existsSync('/dev/full'))('a full disk is exit 1 with a tenders: line, for count and export', async () => {
    for (const args of [['count'], ['export', '--max', '5']]) {
      const out = openSync('/dev/full', 'w');
      const r = await run(process.execPath, [BIN, ...args], cliEnv(sb.url), out);
      closeSync(out);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toBe('tenders: disk full while writing the output: free some space and run again\n');
    }
  });

  it('Ctrl-C stops an export blocked on a reader that does not read', async () => {
    const fifo = join(testDir(), 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = spawn('sh', ['-c', `exec sleep 30 < '${fifo}'`], { stdio: 'ignore' });
    const out = openSync(fifo, 'w'); // returns once the reader has opened its end
    const result = new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'export', '-f', 'ndjson', '-v'], { env: cliEnv(sb.url), stdio: ['ignore', out, 'pipe'] });
      let stderr = '';
      let sent = false;
      child.stderr!.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        // The third page answered means the second is being written: two pages of
        // 100 tenders are more than a pipe holds, so the write waits on the reader.
        if (!sent && (stderr.match(/POST \S+ 200 /g) ?? []).length >= 3) {
          sent = true;
          child.kill('SIGINT');
        }
      });
      child.on('close', (code) => resolve({ code, stderr }));
    });
    closeSync(out);
    const r = await result;
    reader.kill();
    expect(r.code).toBe(130);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe('tenders: interrupted by SIGINT');
  });

});
