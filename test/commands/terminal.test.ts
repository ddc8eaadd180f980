import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { execute } from '../../src/cli.js';
import type { PagerLauncher } from '../../src/terminal-pager.js';
import { FakeClient, pagedTenders } from '../support/fake-client.js';
import { memoryIO, type MemoryIOOptions } from '../support/io.js';
import { testDir } from '../support/test-context.js';

const BASE = { TENDERS_BASE_URL: 'http://service.test', NO_COLOR: '1' };

/** Tenders shaped like the service's: long titles and names, dates, amounts, some values missing. */
const realistic = (i: number) => ({
  title: `Reconstruction of the municipal swimming pool and sports hall, lot ${i}`,
  status: 'open',
  publicationDate: '2026-11-23',
  deadline: i % 3 ? `2027-01-${String(10 + i).padStart(2, '0')}T12:00:00Z` : null,
  buyer: { id: `ORG-DEU-000${i}`, name: 'Universitätsklinikum Schleswig-Holstein', country: 'DEU' },
  estimatedValue: i % 4 ? { amount: 1234567.8 * i, currency: 'EUR', amountEur: 1234567.8 * i } : null,
});

function run(argv: string[], opts: MemoryIOOptions = {}, client = new FakeClient(pagedTenders(40, realistic))) {
  const t = memoryIO({ ...opts, env: { ...BASE, ...opts.env } });
  return execute(argv, t.io, { createClient: async () => client }).then((code) => ({ code, ...t, client, out: t.stdout.text, err: t.stderr.text }));
}

const terminal = (columns: number, env: Record<string, string | undefined> = {}): MemoryIOOptions => ({ stdoutTTY: true, stderrTTY: true, columns, env });
const lines = (text: string) => text.trimEnd().split('\n');

describe('the table on a terminal', () => {
  it.each([60, 80, 120, 200])('fits %i columns: ids and dates whole, text cut with an ellipsis, one hint for what is hidden', async (width) => {
    const r = await run(['search', '-n', '5'], terminal(width));
    expect(r.code).toBe(0);
    const table = lines(r.out);
    for (const line of table) expect(stringWidth(line)).toBeLessThanOrEqual(width);
    expect(table[0]).toMatch(/^id\s+published\s/);
    for (const [n, line] of table.slice(1).entries()) expect(line).toMatch(new RegExp(`^T-${n + 1}\\s+2026-11-23\\s`));
    const hidden = r.err.split('\n').filter((line) => / hidden at /.test(line));
    if (width >= 120) expect(hidden).toEqual([]);
    else {
      expect(hidden).toEqual([expect.stringMatching(new RegExp(`^\\d columns hidden at ${width} columns: `))]);
      const note = r.err.slice(r.err.indexOf(hidden[0]!)).split('\nShowing')[0]!;
      expect(note.replaceAll('\n', ' ')).toMatch(/; widen the terminal or use --columns$/);
      for (const line of note.split('\n')) expect(line.length).toBeLessThanOrEqual(width); // broken at spaces, never mid-word
    }
  });

  it('at 80 columns shows id, both dates (compact, UTC said in the header), the buyer, the value and the title, and names the rest', async () => {
    const r = await run(['search', '-n', '3'], terminal(80));
    expect(lines(r.out)[0]).toMatch(/^id\s+published\s+deadline \(UTC\)\s+buyer\s+value €\s+title$/);
    expect(lines(r.out)[2]).toMatch(/^T-2\s+2026-11-23\s+2027-01-12 12:00\s+Universität\S*…\s+2,469,136\s+Reconstruction\S* .*…$/);
    expect(r.err).toContain('2 columns hidden at 80 columns: status, buyer.country; widen the terminal or use\n--columns\n');
  });

  it('shows a date alone where every time is midnight, and a time to the second only where one needs it; raw into a pipe', async () => {
    const at = (deadline: string) => new FakeClient(pagedTenders(3, (i) => ({ ...realistic(i), deadline: i === 2 ? null : deadline })));
    const midnight = await run(['search', '-n', '3', '--columns', 'id,deadline'], terminal(80), at('2027-01-10T00:00:00Z'));
    expect(lines(midnight.out)).toEqual(['id   deadline', 'T-1  2027-01-10', 'T-2', 'T-3  2027-01-10']);
    const offset = await run(['search', '-n', '3', '--columns', 'id,deadline'], terminal(80), at('2027-01-10T13:00:30+01:00'));
    expect(lines(offset.out)).toEqual(['id   deadline (UTC)', 'T-1  2027-01-10 12:00:30', 'T-2', 'T-3  2027-01-10 12:00:30']);
    const piped = await run(['search', '-n', '3', '--columns', 'id,deadline', '-f', 'table'], {}, at('2027-01-10T13:00:30+01:00'));
    expect(lines(piped.out)).toEqual(['id   deadline', 'T-1  2027-01-10T13:00:30+01:00', 'T-2', 'T-3  2027-01-10T13:00:30+01:00']);
  });

  it('keeps the sort key in view', async () => {
    const r = await run(['search', '-n', '3', '--sort', 'estimatedValue'], terminal(70));
    expect(lines(r.out)[0]).toMatch(/^id\s+deadline \(UTC\)\s+buyer\s+value €\s+title$/);
    expect(r.err.replace(/\n/g, ' ')).toContain('hidden at 70 columns: publicationDate, status, buyer.country;');
  });

  it('keeps a column the query filters by before the title is cut further; one value of a list (-c DEU) is not kept', async () => {
    const plain = await run(['search', '-n', '3', '-c', 'DEU'], terminal(80));
    expect(lines(plain.out)[0]).toMatch(/^id\s+published\s+deadline \(UTC\)\s+buyer\s+value €\s+title$/);
    const two = await run(['search', '-n', '3', '-c', 'DEU,FRA'], terminal(80));
    expect(lines(two.out)[0]).toMatch(/^id\s+published\s+deadline \(UTC\)\s+country\s+buyer\s+value €\s+title$/);
    for (const line of lines(two.out)) expect(stringWidth(line)).toBeLessThanOrEqual(80);
    expect(two.err).toContain('1 column hidden at 80 columns: status;');
    const title = (out: string) => lines(out)[1]!.split('  ').at(-1)!;
    expect(title(two.out).length).toBeLessThan(title(plain.out).length);
  });

  it('right-aligns amounts with thousands separators in whole euros', async () => {
    const r = await run(['search', '-n', '3'], terminal(200));
    const table = lines(r.out);
    expect(table[0]).toMatch(/\s{2,}value €  title$/);
    expect(table[1]).toMatch(/  1,234,568  Reconstruction/);
    expect(table[2]).toMatch(/  2,469,136  Reconstruction/);
    const valueEnd = (line: string) => line.indexOf('  Reconstruction');
    expect(valueEnd(table[1]!)).toBe(valueEnd(table[2]!));
  });

  it('keeps raw values and every column in a table that goes to a pipe', async () => {
    const r = await run(['search', '-n', '3', '-f', 'table']);
    expect(lines(r.out)[0]).toMatch(/^id\s+published\s+deadline\s+status\s+country\s+buyer\s+value €\s+title$/);
    expect(r.out).toContain('1234567.8  Reconstruction of the municipal swimming pool and sports hall, lot 1\n');
    expect(r.out).not.toContain('…');
    expect(r.err).toBe('');
  });

  it('heads --columns with their dot paths, snake_case with --header-style snake', async () => {
    const r = await run(['search', '-n', '2', '--columns', 'id,buyer.name,estimatedValue.amountEur'], terminal(120));
    expect(lines(r.out)[0]).toMatch(/^id\s+buyer\.name\s+estimatedValue\.amountEur$/);
    const snake = await run(['search', '-n', '2', '--columns', 'id,buyer.name', '--header-style', 'snake'], terminal(120));
    expect(lines(snake.out)[0]).toMatch(/^id\s+buyer_name$/);
  });

  it('warns about a --columns path that no field has, naming close matches', async () => {
    const r = await run(['search', '-n', '2', '--columns', 'id,buyer.nme,published'], terminal(120));
    expect(r.code).toBe(0);
    expect(r.err).toContain("tenders: warning: --columns buyer.nme matches no field of any result; did you mean buyer.name? ('tenders fields' lists them)\n");
    expect(r.err).toContain('--columns published matches no field of any result; did you mean publicationDate?');
    const orgs = await run(['orgs', 'search', '-f', 'csv', '--columns', 'nam'], {}, new FakeClient(() => ({ json: { organisations: [{ id: 'O', name: 'N' }], page: { nextCursor: null, total: null } } })));
    expect(orgs.err).toBe("tenders: warning: --columns nam matches no field of any result; did you mean name? ('tenders orgs fields' lists them)\n");
  });
});

describe('the pager', () => {
  it('shows terminal output through less -FRX with LESS=FRX, and says the hints once it has exited', async () => {
    const r = await run(['search', '-n', '2'], terminal(80));
    expect(r.pager.launches).toEqual([{ command: 'less -FRX', env: expect.objectContaining({ LESS: 'FRX', LV: '-c' }) }]);
    expect(lines(r.out)).toHaveLength(3);
    expect(r.err).toMatch(/^2 columns hidden[^\n]*\n--columns\nShowing 1–2 of 40 tenders\.\nNext page:\ntenders search -n 2 --cursor c2 --shown 2\n$/);
  });

  it('takes $TENDERS_PAGER over $PAGER, keeps the user\'s LESS, and none for cat or an empty one', async () => {
    const chosen = await run(['search', '-n', '1'], terminal(80, { PAGER: 'more', TENDERS_PAGER: 'most -s', LESS: 'R' }));
    expect(chosen.pager.launches).toEqual([{ command: 'most -s', env: expect.objectContaining({ LESS: 'R' }) }]);
    expect((await run(['search', '-n', '1'], terminal(80, { PAGER: 'more' }))).pager.launches[0]!.command).toBe('more');
    for (const env of [{ PAGER: 'cat' }, { TENDERS_PAGER: '' }, { TERM: 'dumb' }]) {
      const r = await run(['search', '-n', '1'], terminal(80, env));
      expect(r.pager.launches, JSON.stringify(env)).toEqual([]);
      expect(lines(r.out)).toHaveLength(2);
    }
  });

  it('is off with --no-pager, with -o and when stdout is not a terminal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tenders-pager-'));
    for (const [argv, opts] of [
      [['search', '--no-pager'], terminal(80)],
      [['--no-pager', 'export', '--max', '3'], terminal(80)],
      [['search', '-o', join(dir, 'out.ndjson')], terminal(80)],
      [['search', '-f', 'table'], { stderrTTY: true }],
    ] as const) {
      const r = await run([...argv], opts);
      expect(r.code, argv.join(' ')).toBe(0);
      expect(r.pager.launches, argv.join(' ')).toEqual([]);
    }
    const paged = await run(['export', '--max', '3'], terminal(80));
    expect(paged.pager.launches).toHaveLength(1);
  });

  it('writes directly, with a warning, when the pager cannot start', async () => {
    const broken: PagerLauncher = async () => {
      throw new Error('spawn nope ENOENT');
    };
    const r = await run(['search', '-n', '1'], { ...terminal(80, { PAGER: 'nope' }), launchPager: broken });
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^tenders: warning: cannot run the pager 'nope': spawn nope ENOENT; printing directly\n/);
    expect(lines(r.out)).toHaveLength(2);
  });

  it('ends the run quietly when the user quits the pager early', async () => {
    const quitter: PagerLauncher = async () => {
      let exit!: () => void;
      const exited = new Promise<void>((resolve) => (exit = resolve));
      const input = new Writable({
        write(_chunk, _encoding, done) {
          exit();
          done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
        },
      });
      input.on('error', () => undefined);
      return { input, exited };
    };
    const client = new FakeClient(pagedTenders(1000, realistic));
    const r = await run(['search', '--all'], { ...terminal(80), launchPager: quitter }, client);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(client.requests.length).toBeLessThan(5);
  });
});

describe('formats from file names', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tenders-ext-'));

  it.each([
    ['search', 'r.csv', /^id,title,status,/],
    ['search', 'r.JSON', /^\[\n\{"id":"T-1"/],
    ['export', 'r.ndjson', /^\{"id":"T-1"/],
    ['export', 'r.jsonl', /^\{"id":"T-1"/],
    ['export', 'r', /^id,title,status,/],
    ['search', 'r', /^\{"id":"T-1"/],
  ])('%s -o %s writes the format its extension names (else the default)', async (command, name, start) => {
    const file = join(dir, `${command}-${name}`);
    const r = await run([command, '--max', '3', '-o', file], terminal(80));
    expect(r.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(start);
  });

  it.each([
    ['export', 'r.csv.gz', /^id,title,status,/],
    ['export', 'r.ndjson.GZ', /^\{"id":"T-1"/],
    ['search', 'r.gz', /^\{"id":"T-1"/],
    ['export', 'r.parquet.gz', /^PAR1/],
  ])('%s -o %s: .gz compresses the format the name before it says (else the default)', async (command, name, start) => {
    const file = join(testDir(), name);
    const r = await run([command, '--max', '150', '-n', '50', '-o', file], {}, new FakeClient(pagedTenders(200, realistic)));
    expect(r.code).toBe(0);
    const bytes = readFileSync(file);
    expect([...bytes.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    const plain = gunzipSync(bytes);
    expect(plain.toString('latin1')).toMatch(start);
    if (!name.includes('parquet')) expect(plain.toString('utf8').trim().split('\n')).toHaveLength(name.includes('csv') ? 151 : 150);
    expect(readdirSync(testDir())).toEqual([name]);
  });

  it('--receipt of -o FILE.gz holds the digest and size of the compressed file, as sha256sum reads it', async () => {
    const [file, receipt] = [join(testDir(), 'r.csv.gz'), join(testDir(), 'r.json')];
    expect((await run(['export', '--max', '120', '-o', file, '--receipt', receipt])).code).toBe(0);
    const bytes = readFileSync(file);
    const output = (JSON.parse(readFileSync(receipt, 'utf8')) as { output: { bytes: number; sha256: string } }).output;
    expect(output).toMatchObject({ bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
  });

  it('-o FILE.gz is atomic: a run that fails leaves FILE as it was, and no partial file', async () => {
    const file = join(testDir(), 'open.csv.gz');
    writeFileSync(file, 'yesterday');
    const tenders = pagedTenders(300, realistic);
    const failing = new FakeClient((request, n) => (n === 3 ? { status: 400, json: { message: 'no' } } : tenders(request, n)));
    const r = await run(['export', '-n', '50', '-o', file, '--retries', '0'], {}, failing);
    expect(r.code).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe('yesterday');
    expect(readdirSync(testDir())).toEqual(['open.csv.gz']);
  });

  it('an extension no format has is exit 2 naming the known ones, before any request; -f names the format instead', async () => {
    for (const [name, ext] of [['x.xlsx', '.xlsx'], ['x.txt.gz', '.txt'], ['x.csv.zip', '.zip']] as const) {
      const r = await run(['export', '-o', join(testDir(), name)]);
      expect(r.code, name).toBe(2);
      expect(r.err).toBe(
        `tenders: -o ${join(testDir(), name)}: no format writes ${ext} files; name one with -f, or use an extension: ` +
          '.csv, .ndjson, .jsonl, .json, .tsv, .ics, .atom, .ocds.json, .parquet (each may end in .gz)\n',
      );
      expect(r.client.requests).toEqual([]);
    }
    expect((await run(['export', '--max', '1', '-f', 'csv', '-o', join(testDir(), 'x.txt')])).code).toBe(0);
    expect(readFileSync(join(testDir(), 'x.txt'), 'utf8')).toMatch(/^id,title,/);
    const resume = await run(['export', '--resume', '-o', join(testDir(), 'y.csv.gz')]);
    expect(resume).toMatchObject({ code: 2, err: expect.stringMatching(/--resume cannot continue a compressed file/) });
  });

  it('refuses an extension that contradicts --format, before any request', async () => {
    const r = await run(['export', '-f', 'csv', '-o', join(dir, 'x.json')]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`tenders: -o ${join(dir, 'x.json')} names a json file but --format is csv: drop --format or rename the file\n`);
    expect(r.client.requests).toEqual([]);
    expect((await run(['export', '-f', 'ndjson', '--max', '1', '-o', join(dir, 'x.jsonl')])).code).toBe(0);
  });
});

describe('--header-style', () => {
  it('writes snake_case CSV headers and takes no other style', async () => {
    const r = await run(['export', '--max', '2', '-f', 'csv', '--header-style', 'snake']);
    expect(lines(r.out)[0]).toBe('id,title,status,publication_date,deadline,buyer_id,buyer_name,buyer_country,estimated_value_amount,estimated_value_currency,estimated_value_amount_eur');
    const bad = await run(['export', '--header-style', 'camel']);
    expect(bad.code).toBe(2);
  });

  it('is part of what --resume compares: another style starts afresh', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tenders-style-')), 'out.csv');
    const tenders = pagedTenders(250, realistic);
    const failing = new FakeClient((request, n) => (n === 2 ? { status: 400, json: { message: 'no' } } : tenders(request, n)));
    const first = await run(['export', '-o', file, '--header-style', 'snake'], {}, failing);
    expect(first.code).toBe(1);
    const again = await run(['export', '-o', file, '--resume', '--header-style', 'path']);
    expect(again.code).toBe(0);
    expect(again.err).toContain('was of a different query or format; starting afresh');
    expect(readFileSync(file, 'utf8').split('\n')[0]).toMatch(/^id,title,status,publicationDate,/);
  });
});
