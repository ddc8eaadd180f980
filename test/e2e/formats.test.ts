import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { runCli } from '../support/cli.js';
import { whenDir } from '../support/dir-events.js';
import { ocdsValidator, readAtomWithPython, readIcsWithPython, xmllintErrors } from '../support/readers.js';
import { hasScript, inTerminal } from '../support/terminal.js';

const PATH = '/api/v1/tenders/search';
type Tender = { id: string; title: string; deadline: string | null; estimatedValue: { amountEur: number } | null; status: string };

let sb: Sandbox;
let dir: string;

beforeAll(async () => {
  sb = await startSandbox({ size: 600, seed: 5 });
  dir = await mkdtemp(join(tmpdir(), 'tenders-formats-'));
});
afterAll(() => sb.close());

const truth = () => sb.truth(PATH, {}) as Tender[];

describe('the formats made for other tools, end to end against the sandbox', () => {
  it('tsv: a line a tender, split on tabs into the header, escapes undone give the service text', async () => {
    const r = await runCli(['search', '--all', '-f', 'tsv', '--columns', 'id,title'], sb.url);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').slice(0, -1);
    expect(lines[0]).toBe('id\ttitle');
    const unescape = (cell: string) => cell.replace(/\\([tnr\\])/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r', '\\': '\\' })[c]!);
    expect(lines.slice(1).map((l) => l.split('\t').map(unescape))).toEqual(truth().map((t) => [t.id, t.title]));
  });

  it('ics: export -o FILE.ics is a calendar icalendar reads, an event per tender with a deadline, with --remind', async () => {
    const file = join(dir, 'deadlines.ics');
    const r = await runCli(['export', '-o', file, '--remind', '3d,2h', '--verbose'], sb.url);
    expect(r.code).toBe(0);
    const withDeadline = truth().filter((t) => t.deadline !== null);
    const left = truth().length - withDeadline.length;
    expect(r.stderr).toContain(`${left} tenders have no deadline (or none a calendar can read) and are not in the calendar.`);
    const { events } = readIcsWithPython(readFileSync(file, 'utf8'));
    expect(events.map((e) => e.UID)).toEqual(withDeadline.map((t) => `${t.id}@tenders.invalid`));
    expect(events.map((e) => new Date(String(e.DTSTART)).getTime())).toEqual(withDeadline.map((t) => new Date(t.deadline!).getTime()));
    expect(events.every((e) => JSON.stringify(e.ALARMS) === '["-P3D","-PT2H"]')).toBe(true);
  });

  it('atom: search -f atom is a feed xmllint and feedparser accept, hostile titles and all', async () => {
    const r = await runCli(['search', '--all', '-f', 'atom'], sb.url);
    expect(r.code).toBe(0);
    expect(xmllintErrors(r.stdout)).toBe('');
    const feed = readAtomWithPython(r.stdout);
    expect(feed.bozo).toBe(false);
    expect(feed.entries.map((e) => e.id)).toEqual(truth().map((t) => `urn:tenders:${t.id}`));
    expect(feed.entries.map((e) => JSON.parse(e.json) as unknown)).toEqual(truth());
    // For a person: the content is a short list, not the JSON; the feed's id follows the query and the service.
    for (const entry of feed.entries) expect(entry.content).toMatch(/^<ul><li>(Buyer|Country|Deadline): /);
    const feedId = async (...args: string[]) => readAtomWithPython((await runCli(['export', '-f', 'atom', ...args], sb.url)).stdout).feed.id as string;
    const [deu, again, fra] = [await feedId('-c', 'DEU'), await feedId('-c', 'DEU'), await feedId('-c', 'FRA')];
    expect(deu).toMatch(/^urn:tenders:feed:[0-9a-f]{32}$/);
    expect(again).toBe(deu);
    expect(fra).not.toBe(deu);
  });

  it('ocds: export -o FILE.ocds.json validates against the OCDS 1.1.5 release package schema', async () => {
    const file = join(dir, 'tenders.ocds.json');
    const r = await runCli(['export', '-o', file, '--ocid-prefix', 'ocds-a1b2c3-'], sb.url);
    expect(r.code).toBe(0);
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { releases: { ocid: string; tender: { title: string } }[] };
    expect(ocdsValidator()(pkg)).toEqual({ valid: true, errors: 'No errors' });
    expect(pkg.releases.map((r) => [r.ocid, r.tender.title])).toEqual(truth().map((t) => [`ocds-a1b2c3-${t.id}`, t.title]));
  });

  it('parquet: export -o FILE.parquet reads back typed; --resume refuses it', async () => {
    const file = join(dir, 'tenders.parquet');
    const r = await runCli(['export', '-o', file], sb.url);
    expect(r.code).toBe(0);
    const bytes = readFileSync(file);
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
    const rows = await parquetReadObjects({ file: buffer });
    expect(rows.map((row) => [row.id, row.title, row.deadline, row['estimatedValue.amountEur']])).toEqual(
      truth().map((t) => [t.id, t.title, t.deadline === null ? null : new Date(t.deadline), t.estimatedValue?.amountEur ?? null]),
    );
    expect(parquetMetadata(buffer).schema.find((s) => s.name === 'estimatedValue.amountEur')!.type).toBe('DOUBLE');
    const resume = await runCli(['export', '-o', file, '--resume'], sb.url);
    expect(resume.code).toBe(2);
    expect(resume.stderr).toContain('--resume cannot continue a parquet file');
  });

  it('what an output lost is a warning on stderr without a terminal (cron): an empty OCDS package, fields after the first page in Parquet and TSV', async () => {
    const empty = await runCli(['export', '-c', 'ZZZ', '-o', join(dir, 'x.ocds.json')], sb.url);
    expect(empty).toMatchObject({ code: 0, stdout: '' });
    expect(empty.stderr).toBe('tenders: warning: the release package has no releases: OCDS asks for at least one, so validators will refuse it\n');
    try {
      const fields = 'amendment\\.number, amendment\\.reason';
      sb.setFaults({ driftAfter: 1 });
      const parquet = await runCli(['export', '-o', join(dir, 'drift.parquet')], sb.url);
      expect(parquet.code).toBe(0);
      expect(parquet.stderr).toMatch(
        new RegExp(`^tenders: warning: 2 fields first seen after the first page are not columns of the Parquet file \\(its columns come from the first page; its doc column holds them\\): ${fields}; to make them columns \\(--columns writes no doc column\\), add them to the columns: --columns id,.*,amendment\\.reason\n$`),
      );
      sb.setFaults({ driftAfter: 1 });
      const tsv = await runCli(['export', '-f', 'tsv'], sb.url);
      expect(tsv.stderr).toMatch(new RegExp(`^tenders: warning: 2 fields first seen after the first page are not in the TSV \\(its columns come from the first page\\): ${fields}; `));
    } finally {
      sb.setFaults({});
    }
  });

  it('refuses bad --remind, flags of another format, and --list in a tender format, before any request (exit 2)', async () => {
    const before = sb.requests.length;
    const bad = await runCli(['search', '-f', 'ics', '--remind', '7 days'], sb.url);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--remind takes durations before the deadline such as 7d,1d,2h');
    const other = await runCli(['search', '-f', 'csv', '--remind', '1d'], sb.url);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('--remind is for the ics format, not');
    const list = await runCli(['watch', '--list', '-f', 'ics'], sb.url, { env: { TENDERS_STATE_DIR: dir } });
    expect(list.code).toBe(2);
    expect(sb.requests.length).toBe(before);
  });

  it.skipIf(!hasScript)('parquet is refused on a terminal, before any request (exit 2)', async () => {
    const before = sb.requests.length;
    const r = await inTerminal(sb.url, ['search', '-f', 'parquet'], { env: { TENDERS_PAGER: 'cat' } });
    expect(r.code).toBe(2);
    expect(r.text).toContain('--format parquet writes binary data, which a terminal cannot show');
    expect(sb.requests.length).toBe(before);
  });
});

describe.each(['ics', 'atom', 'ocds'] as const)('export -f %s stopped by SIGINT, then --resume', (format) => {
  it('continues the file into one whole calendar, feed or package', async () => {
    const big = await startSandbox({ size: 1200, seed: 21 });
    const work = await mkdtemp(join(tmpdir(), `tenders-resume-${format}-`));
    try {
      const file = join(work, `out.${format === 'ocds' ? 'ocds.json' : format}`);
      big.setFaults({ latencyMs: 40 });
      let stop = () => {};
      const stopped = await runCli(['export', '-o', file], big.url, {
        onSpawn: (child) => {
          const committed = async () => (JSON.parse(readFileSync(`${file}.resume.json`, 'utf8')) as { pages: number }).pages >= 3;
          stop = whenDir(work, committed, () => child.kill('SIGINT'));
        },
      });
      stop();
      big.setFaults({});
      expect(stopped.code).toBe(130);
      const resumed = await runCli(['export', '-o', file, '--resume'], big.url);
      expect(resumed.code).toBe(0);
      const all = big.truth(PATH, {}) as Tender[];
      const text = readFileSync(file, 'utf8');
      if (format === 'ics') expect(readIcsWithPython(text).events).toHaveLength(all.filter((t) => t.deadline !== null).length);
      if (format === 'atom') expect(readAtomWithPython(text).entries.map((e) => e.id)).toEqual(all.map((t) => `urn:tenders:${t.id}`));
      if (format === 'ocds') {
        const pkg = JSON.parse(text) as { releases: { ocid: string }[] };
        expect(ocdsValidator()(pkg).valid).toBe(true);
        expect(pkg.releases.map((r) => r.ocid)).toEqual(all.map((t) => `ocds-tenders-${t.id}`));
      }
    } finally {
      await big.close();
    }
    // Two exports and a Python parse: more than the default limit on a machine shared by many runs.
  }, 120_000);
});
