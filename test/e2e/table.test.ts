import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../support/sandbox.js';
import { testDir } from '../support/test-context.js';
import { runCli, runShell } from '../support/cli.js';
import { hasScript, inTerminal } from '../support/terminal.js';
import { requireTool } from '../support/tools.js';

const PATH = '/api/v1/tenders/search';
const README_QUERY = ['search', '--country', 'DEU', '--status', 'open', '--sort', 'deadline'];
const hasSqlite = requireTool('sqlite3', 'apt-get install sqlite3');

interface Tender {
  id: string;
  publicationDate: string;
  deadline: string | null;
  buyer: { name: string };
}

const sb = useSandbox({ size: 5000, seed: 1 });

/** The table's lines on a screen: the header and the rows, without the hints. */
const tableLines = (screen: string) => screen.split('\n').filter((line) => /^(id|T-\d+)\s/.test(line));

describe.skipIf(!hasScript)('the README tour\'s search in a terminal', () => {
  const truth = () => sb.truth(PATH, { buyerCountries: ['DEU'], statuses: ['open'], sortBy: 'deadline' }).slice(0, 25) as Tender[];

  it.each([60, 80, 120, 200])('at %i columns: nothing wider than the screen, ids and deadlines whole, what is hidden said once', async (cols) => {
    const r = await inTerminal(sb.url, README_QUERY, { cols });
    expect(r.code).toBe(0);
    const [header, ...rows] = tableLines(r.text);
    for (const line of r.text.split('\n').filter((l) => !/^\d+ columns? hidden/.test(l) && !l.startsWith('tenders search '))) {
      expect(stringWidth(line), line).toBeLessThanOrEqual(cols);
    }
    expect(header).toMatch(/^id\s+(published\s+)?deadline \(UTC\)\s/);
    expect(rows).toHaveLength(25);
    for (const [i, tender] of truth().entries()) {
      expect(rows[i]!.startsWith(`${tender.id}  `)).toBe(true);
      // Compact, in UTC: 2024-12-17T12:00:00Z is 2024-12-17 12:00.
      expect(rows[i]).toContain(`  ${tender.deadline!.slice(0, 10)} ${tender.deadline!.slice(11, 16)}  `);
    }
    const hints = r.text.split('\n').filter((line) => / hidden at /.test(line));
    if (cols >= 120) {
      expect(hints).toEqual([]);
      expect(header).toMatch(/^id\s+published\s+deadline \(UTC\)\s+status\s+country\s+buyer\s+value €\s+title$/);
    } else {
      expect(hints).toHaveLength(1);
      // Broken at spaces to fit the screen, never mid-word.
      const note = r.text.slice(r.text.indexOf(hints[0]!)).split('\nShowing')[0]!;
      expect(note.replaceAll('\n', ' ')).toMatch(new RegExp(`^\\d columns hidden at ${cols} columns: (\\S+, )*buyer\\.country; widen the terminal or use --columns$`));
      for (const line of note.split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(cols);
    }
    if (cols === 200) expect(rows.some((row) => row.includes('…'))).toBe(false);
  });

  it('is the search the README shows, with the table it prints at 80 columns', async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const shown = `$ tenders ${README_QUERY.join(' ')} -n 5     # an 80-column terminal\n`;
    expect(readme).toContain(shown);
    const sample = readme.slice(readme.indexOf(shown) + shown.length).split('\nShowing')[0]!;
    const r = await inTerminal(sb.url, [...README_QUERY, '-n', '5'], { cols: 80, env: { NO_COLOR: '1' } });
    expect(r.text).toContain(sample);
  });

  it('at 80 columns shows id, both dates, the buyer and the title, each name cut visibly', async () => {
    const r = await inTerminal(sb.url, README_QUERY, { cols: 80 });
    const [header, ...rows] = tableLines(r.text);
    expect(header).toMatch(/^id\s+published\s+deadline \(UTC\)\s+buyer\s+title$/);
    const first = truth()[0]!;
    expect(rows[0]).toMatch(new RegExp(`^${first.id}  ${first.publicationDate}  ${first.deadline!.replace('T', ' ').slice(0, 16)}  ${first.buyer.name.slice(0, 5)}`));
    expect(r.text).toContain('3 columns hidden at 80 columns: estimatedValue.amountEur, status, buyer.country;\nwiden the terminal or use --columns');
  });
});

describe.skipIf(!hasScript)('numbers', () => {
  it('right-aligned with thousands separators in whole euros on a terminal; raw in a pipe', async () => {
    const args = ['search', '-n', '10', '--sort', 'estimatedValue', '--columns', 'id,estimatedValue.amountEur'];
    const r = await inTerminal(sb.url, args, { cols: 80 });
    const [header, ...rows] = tableLines(r.text);
    const truth = (sb.truth(PATH, { sortBy: 'estimatedValue' }).slice(0, 10) as { estimatedValue: { amountEur: number } }[]).map((t) => t.estimatedValue.amountEur);
    const grouped = truth.map((n) => Math.round(n).toString().replace(/\B(?=(\d{3})+$)/g, ','));
    expect(rows.map((row) => row.split(/\s+/)[1])).toEqual(grouped);
    for (const row of rows) expect(row.length).toBe(header!.length);
    const piped = await runCli([...args, '-f', 'table'], sb.url);
    expect(piped.stdout.trimEnd().split('\n').slice(1).map((row) => Number(row.split(/\s+/)[1]))).toEqual(truth);
  });
});

describe.skipIf(!hasScript)('--columns at 80 columns', () => {
  it('a URL that fits is whole: the title gives way first, and no header is cut', async () => {
    const r = await inTerminal(sb.url, ['search', '-n', '5', '--no-pager', '--columns', 'title,url,status'], { cols: 80 });
    expect(r.code).toBe(0);
    const lines = r.text.split('\n').filter((line) => /^(title|\S.*https:)/.test(line));
    expect(lines[0]).toMatch(/^title\s+url\s+status$/);
    const urls = (sb.truth(PATH, {}).slice(0, 5) as (Tender & { url: string })[]).map((t) => t.url);
    expect(lines.slice(1).map((line) => /https:\S+/.exec(line)![0])).toEqual(urls);
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(80);
  });
});

describe.skipIf(!hasScript)('the pager', () => {
  it('takes the terminal output when on, not when --no-pager; the hints stay on the terminal', async () => {
    const paged = join(testDir(), 'paged.txt');
    const env = { PAGER: `sh -c 'cat > ${paged}'` };
    const on = await inTerminal(sb.url, ['search', '-n', '5', '--columns', 'id,title'], { cols: 100, env });
    expect(on.code).toBe(0);
    expect(tableLines(on.text)).toEqual([]);
    expect(on.text).toMatch(/Showing 1–5 of 5,000 tenders\./);
    const ids = (sb.truth(PATH, {}).slice(0, 5) as Tender[]).map((t) => t.id);
    expect(tableLines(readFileSync(paged, 'utf8')).map((line) => line.split(' ')[0])).toEqual(['id', ...ids]);

    const other = join(testDir(), 'other.txt');
    const off = await inTerminal(sb.url, ['search', '-n', '5', '--columns', 'id,title', '--no-pager'], { cols: 100, env: { PAGER: `sh -c 'cat > ${other}'` } });
    expect(tableLines(off.text)).toHaveLength(6);
    expect(existsSync(other)).toBe(false);
  });

  it('TENDERS_PAGER wins over PAGER, and a pipe is never paged', async () => {
    const chosen = join(testDir(), 'chosen.txt');
    const r = await inTerminal(sb.url, ['search', '-n', '2'], { env: { PAGER: 'false', TENDERS_PAGER: `sh -c 'cat > ${chosen}'` } });
    expect(r.code).toBe(0);
    expect(tableLines(readFileSync(chosen, 'utf8'))).toHaveLength(3);
    const piped = join(testDir(), 'piped.txt');
    const pipe = await runShell(`$TENDERS search -n 2 | wc -l`, sb.url, { env: { PAGER: `sh -c 'cat > ${piped}'` } });
    expect(pipe.stdout.trim()).toBe('2');
    expect(existsSync(piped)).toBe(false);
  });

  it('TERM=dumb: no pager, no colour, the table still fitted', async () => {
    const paged = join(testDir(), 'dumb.txt');
    const r = await inTerminal(sb.url, ['search', '-n', '3'], { cols: 80, env: { TERM: 'dumb', NO_COLOR: undefined, PAGER: `sh -c 'cat > ${paged}'` } });
    expect(r.code).toBe(0);
    expect(existsSync(paged)).toBe(false);
    expect(r.screen).not.toContain('\u001b[1m');
    expect(tableLines(r.text)[0]).toMatch(/^id\s+published\s+deadline \(UTC\)\s+buyer\s+title$/);
  });

  it('less -FRX shows a short table and exits by itself', async () => {
    const r = await inTerminal(sb.url, ['search', '-n', '3'], { cols: 120, env: { PAGER: undefined, TENDERS_PAGER: undefined, LESS: undefined } });
    expect(r.code).toBe(0);
    expect(tableLines(r.text)).toHaveLength(4);
  });

  it('a user quitting the pager early ends a long search quietly', async () => {
    const before = sb.requests.length;
    const r = await inTerminal(sb.url, ['search', '--all', '-n', '10'], { env: { PAGER: 'head -c 100' } });
    expect(r.code).toBe(0);
    expect(r.text).not.toMatch(/tenders:|Error/);
    expect(sb.requests.length - before).toBeLessThan(500);
  });

  it('after the pager closes early, the hint says how far it got, not the whole range', async () => {
    // A pager that reads 30 lines and quits, as a user pressing q on a long search.
    const r = await inTerminal(sb.url, ['search', '--all', '-n', '10', '-c', 'DEU'], { cols: 80, env: { PAGER: 'head -n 30' } });
    expect(r.code).toBe(0);
    const total = sb.truth(PATH, { buyerCountries: ['DEU'] }).length;
    expect(r.text).not.toMatch(/Showing|tenders:/);
    const [, last] = /The pager closed after 1–(\d+) of ([\d,]+) tenders\./.exec(r.text) ?? [];
    expect(Number(last)).toBeGreaterThanOrEqual(29);
    expect(Number(last)).toBeLessThan(total);
    expect(r.text).toContain(`of ${total.toLocaleString('en-US')} tenders`);
  });
});

describe('tenders fields', () => {
  const PATHS = [
    'id', 'title', 'status', 'publicationDate', 'deadline', 'buyer.id', 'buyer.name', 'buyer.country',
    'estimatedValue.amount', 'estimatedValue.currency', 'estimatedValue.amountEur', 'procedure', 'cpv', 'cpvCodes', 'url',
  ];

  it('piped: every dot path with a JSON example, from one page of 20 with the search filters', async () => {
    const before = sb.requests.length;
    const r = await runCli(['fields', '-c', 'FRA', '-s', 'open'], sb.url);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const rows = r.stdout.trimEnd().split('\n').map((line) => line.split('\t'));
    expect(rows.map(([path]) => path)).toEqual(PATHS);
    expect(JSON.parse(rows.find(([path]) => path === 'buyer.country')![1]!)).toBe('FRA');
    expect(JSON.parse(rows.find(([path]) => path === 'status')![1]!)).toBe('open');
    expect(sb.requests.slice(before).map((q) => q.body)).toEqual([{ limit: 20, buyerCountries: ['FRA'], statuses: ['open'] }]);
  });

  it('every path it lists works with --columns, without a warning', async () => {
    const r = await runCli(['search', '-n', '3', '-f', 'csv', '--columns', PATHS.join(',')], sb.url);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const typo = await runCli(['search', '-n', '3', '-f', 'csv', '--columns', 'id,buyer.nme'], sb.url);
    expect(typo.stderr).toBe("tenders: warning: --columns buyer.nme matches no field of any result; did you mean buyer.name? ('tenders fields' lists them)\n");
  });

  it('orgs fields lists the organisation fields; -f json parses', async () => {
    const r = await runCli(['orgs', 'fields', '-f', 'json'], sb.url);
    expect((JSON.parse(r.stdout) as { path: string }[]).map((f) => f.path)).toEqual(['id', 'name', 'country', 'tenderCount']);
  });

  it.skipIf(!hasScript)('in a terminal: a table of fields and examples within the width, and a hint', async () => {
    const r = await inTerminal(sb.url, ['fields'], { cols: 60 });
    expect(r.code).toBe(0);
    const lines = r.text.split('\n');
    expect(lines[0]).toMatch(/^field\s+example$/);
    expect(lines.slice(1, PATHS.length + 1).map((line) => line.split(' ')[0])).toEqual(PATHS);
    for (const line of lines.slice(0, PATHS.length + 1)) expect(stringWidth(line)).toBeLessThanOrEqual(60);
    expect(r.text).toContain('15 fields in the first 20 tenders; choose some with --columns id,title,status');
  });
});

describe('formats from -o file names', () => {
  it.each([
    ['search', 'page.csv', '-f csv'],
    ['search', 'page.json', '-f json'],
    ['export', 'all.ndjson', '-f ndjson'],
    ['export', 'all.jsonl', '-f ndjson'],
  ])('%s -o %s writes what %s writes', async (command, name, format) => {
    const file = join(testDir(), name);
    const r = await runCli([command, '--max', '30', '-o', file], sb.url);
    expect(r.code).toBe(0);
    const direct = await runCli([command, '--max', '30', ...format.split(' ')], sb.url);
    expect(readFileSync(file, 'utf8')).toBe(direct.stdout);
  });

  it('an extension that contradicts --format is a usage error before any request', async () => {
    const before = sb.requests.length;
    const r = await runCli(['export', '-f', 'ndjson', '-o', join(testDir(), 'x.csv')], sb.url);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tenders: -o \S+x\.csv names a csv file but --format is ndjson: drop --format or rename the file\n$/);
    expect(sb.requests.length).toBe(before);
  });
});

describe('--header-style snake', () => {
  it('gives CSV headers that SQL takes unquoted', async () => {
    const r = await runCli(['export', '--max', '3', '--header-style', 'snake'], sb.url);
    expect(r.stdout.split('\n')[0]).toBe(
      'id,title,status,publication_date,deadline,buyer_id,buyer_name,buyer_country,estimated_value_amount,estimated_value_currency,estimated_value_amount_eur,procedure,cpv,cpv_codes,url',
    );
  });

  it.skipIf(!hasSqlite)('imports into sqlite3 and answers a query on buyer_name', async () => {
    const file = join(testDir(), 'snake.csv');
    expect((await runCli(['export', '--max', '50', '-c', 'DEU', '--header-style', 'snake', '-o', file], sb.url)).code).toBe(0);
    const sql = spawnSync('sqlite3', [':memory:', '-cmd', `.import --csv ${file} t`, 'select count(*), count(distinct buyer_name) > 1 from t where buyer_country = \'DEU\''], { encoding: 'utf8' });
    expect(sql.stderr).toBe('');
    expect(sql.stdout.trim()).toBe('50|1');
  });
});
