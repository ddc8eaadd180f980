import { describe, expect, it } from 'vitest';
import { useSandbox } from '../support/sandbox.js';
import { runCli } from '../support/cli.js';

const sb = useSandbox({ size: 200 });

describe('usage errors: exit 2, one tenders: line, nothing on stdout, no request', () => {
  it.each([
    [['search', '--limit', '0'], /--limit takes a whole number from 1 to 100/],
    [['search', '--limit', '101'], /--limit/],
    [['export', '-n', 'abc'], /--limit/],
    [['search', '--country', 'DE'], /three-letter country codes/],
    [['count', '-c', 'FRA,,ITA'], /--country/],
    [['search', '--sort', 'title'], /--sort takes one of publicationDate, deadline, estimatedValue/],
    [['search', '--order', 'sideways'], /--order takes one of asc, desc, not 'sideways'/],
    [['search', '--status', ''], /--status takes non-empty values/],
    [['search', '--max', '0'], /--max/],
    [['search', '--format', 'xml'], /^tenders: --format takes one of table, csv, ndjson, json, tsv, ics, atom, ocds, parquet, not 'xml' \(see 'tenders search --help'\)\n$/],
    [['search', '--filter', 'nokey'], /--filter takes KEY=VALUE/],
    [['search', '--filter', 'sortBy=deadline'], /--sort/],
    [['search', '--columns', 'a..b'], /--columns/],
    [['search', '--frobnicate'], /unknown option '--frobnicate'/],
    [['export', '--resume'], /--resume .* -o FILE/],
    [['export', '--cursor', 'abc'], /^tenders: export always fetches every page from the first: to start from a cursor, use search --cursor CURSOR --all \(to continue a stopped export, export -o FILE --resume\)\n$/],
    [['export', '--all'], /^tenders: export always fetches every page: leave out --all\n$/],
    [['search', '--timeout', '0'], /--timeout/],
    [['search', '--retries', '-1'], /--retries/],
    [['search', '-q', '-v'], /--quiet and --verbose/],
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['search', '--base-url', 'ftp://example.org'], /http: or https:/],
    [['search', '--base-url', 'not a url'], /not a URL/],
  ])('%j', async (args, message) => {
    const before = sb.requests.length;
    const r = await runCli(args, sb.url);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^tenders: [^\n]+\n$/);
    expect(r.stderr).toMatch(message);
    expect(sb.requests.length).toBe(before);
  });

  it('takes choice values in any case, as --sort and -c take theirs', async () => {
    const csv = await runCli(['search', '-f', 'CSV', '-n', '2', '--max', '2', '--color', 'NEVER', '--header-style', 'Snake'], sb.url);
    expect(csv).toMatchObject({ code: 0, stderr: '' });
    expect(csv.stdout.split('\n')[0]).toMatch(/^id,/);
    const shell = await runCli(['completion', 'BASH'], undefined);
    expect(shell.code).toBe(0);
    expect(shell.stdout).toContain('_tenders');
    const bad = await runCli(['completion', 'powershell'], undefined);
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr).toBe("tenders: completion SHELL takes one of bash, zsh, fish, not 'powershell' (see 'tenders completion --help')\n");
  });

  it('says how to set the base URL when none is given', async () => {
    const r = await runCli(['search'], undefined);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tenders: no service URL: pass --base-url URL or set TENDERS_BASE_URL/);
  });

  it('accepts global flags before and after the command', async () => {
    const after = await runCli(['count', '--base-url', sb.url, '--retries', '0'], undefined);
    const beforeCmd = await runCli(['--base-url', sb.url, 'count'], undefined);
    expect(after.code).toBe(0);
    expect(after.stdout).toBe(beforeCmd.stdout);
  });
});

describe('help and version', () => {
  it.each([['search'], ['export'], ['count']])('%s --help shows examples and exits 0', async (command) => {
    const r = await runCli([command, '--help'], undefined);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Examples:\n {2}tenders /);
    expect(r.stdout).toMatch(/--base-url/);
  });

  it('`help COMMAND` shows that command\'s help; a group without its command is a usage error', async () => {
    const help = await runCli(['help', 'export'], undefined);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: tenders export/);
    const group = await runCli(['orgs'], undefined);
    expect(group.code).toBe(2);
    expect(group.stdout).toBe('');
    expect(group.stderr).toMatch(/Commands:[\s\S]*\ntenders: missing command: choose one of those above\n$/);
  });

  it('bare `tenders` prints its help on stdout and exits 0, as gh and git do; a wrong command stays a usage error', async () => {
    const bare = await runCli([], undefined);
    expect(bare.code).toBe(0);
    expect(bare.stderr).toBe('');
    expect(bare.stdout).toMatch(/^Usage: tenders \[options\] \[command\]\n[\s\S]*\nCommands:\n/);
    const wrong = await runCli(['frobnicate'], undefined);
    expect(wrong.code).toBe(2);
    expect(wrong.stdout).toBe('');
  });

  it('--version prints the version and exits 0', async () => {
    const r = await runCli(['--version'], undefined);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
