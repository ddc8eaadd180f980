import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CPV_PATHS, tenderCpvCodes } from '../../src/model/cpv.js';
import { parseJson } from '../../src/model/json-parse.js';
import { runCli } from '../support/cli.js';
import { postgres, POSTGRES_MISSING } from '../support/postgres.js';
import { useSandbox } from '../support/sandbox.js';
import { testDir } from '../support/test-context.js';

/**
 * What people who follow tenders for a living ask (issue 36): CPV codes by
 * name, the local filters by code and buyer, counts per code, and one
 * tender's story with `tenders show`, end to end against the sandbox.
 */
const sb = useSandbox({ size: 600, seed: 36 });

type Tender = Record<string, unknown> & { id: string; buyer: { id: string; name: string } };

const VOCABULARY = readFileSync(new URL('../../data/cpv-2008.tsv', import.meta.url), 'utf8').split('\n').filter(Boolean);
const lines = (text: string) => text.split('\n').filter(Boolean);
const ids = (text: string) => lines(text).map((line) => (parseJson(line) as Tender).id);

/** A copy of every sandbox tender as the sync `all` keeps it, at `db`; the tenders as the service sent them. */
async function synced(db: string): Promise<Tender[]> {
  const r = await runCli(['sync', 'all', '--db', db], sb.url);
  expect(r.code, r.stderr).toBe(0);
  const exported = await runCli(['export', '-f', 'ndjson'], sb.url);
  return lines(exported.stdout).map((line) => parseJson(line) as Tender);
}

/** The CLI with no service configured: a local command asks nobody. */
const local = (args: string[]) => runCli(args, undefined);

describe('tenders cpv: codes by name or branch', () => {
  it('finds a name by any of its words in any case, and lists a branch by its code', async () => {
    const road = await local(['cpv', 'ROAD', '-f', 'tsv']);
    expect(road.code, road.stderr).toBe(0);
    expect(lines(road.stdout)[0]).toBe('code\tname');
    expect(lines(road.stdout)).toContain('45233140\tRoadworks');
    // Every name holding the word, those where a word begins with it first, each part in code order.
    const holding = VOCABULARY.filter((line) => line.split('\t')[1]!.toLowerCase().includes('road'));
    const begins = (line: string) => /(^|[^\p{L}\p{N}])road/iu.test(line.split('\t')[1]!);
    expect(lines(road.stdout).slice(1)).toEqual([...holding.filter(begins), ...holding.filter((line) => !begins(line))]);

    const branch = await local(['cpv', '4523', '-f', 'ndjson']);
    const codes = lines(branch.stdout).map((line) => (JSON.parse(line) as { code: string }).code);
    expect(codes).toEqual(VOCABULARY.map((line) => line.split('\t')[0]!).filter((code) => code.startsWith('4523')));
    expect(codes).toContain('45230000');

    const both = await local(['cpv', 'road', 'works', '45', '-f', 'tsv']);
    expect(lines(both.stdout).slice(1).every((line) => line.startsWith('45') && /road/i.test(line) && /works/i.test(line))).toBe(true);
  });

  it('sends no request, so --dry-run is a usage error, as it is for show', async () => {
    expect(await local(['--dry-run', 'cpv', 'road'])).toMatchObject({ code: 2, stdout: '' });
    expect(await local(['--dry-run', 'show', 'T-1'])).toMatchObject({ code: 2, stderr: 'tenders: --dry-run shows the requests a run would send: show sends none, it reads the local copy\n' });
  });

  it('says on a terminal when nothing matches, and prints nothing: not an error', async () => {
    const r = await local(['cpv', 'xyzzy', '--verbose']);
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr).toContain("No CPV code matches 'xyzzy'");
  });
});

describe('a table with a CPV column', () => {
  it('shows each code with its name; other formats keep the codes as the service sent them', async () => {
    const r = await runCli(['search', '-n', '5', '-f', 'table', '--columns', 'id,cpv,cpvCodes'], sb.url);
    expect(r.code, r.stderr).toBe(0);
    const json = await runCli(['search', '-n', '5', '-f', 'ndjson'], sb.url);
    const tenders = lines(json.stdout).map((line) => parseJson(line) as Tender & { cpv: string; cpvCodes: string[] });
    const name = (code: string) => VOCABULARY.find((line) => line.startsWith(`${code}\t`))!.split('\t')[1]!;
    const rows = lines(r.stdout).slice(1);
    tenders.forEach((t, i) => {
      expect(rows[i]).toContain(`${t.cpv} ${name(t.cpv)}`);
      expect(rows[i]).toContain(t.cpvCodes.map((code) => `${code} ${name(code)}`).join('; '));
    });
    expect(json.stdout).not.toContain(name(tenders[0]!.cpv));
  });
});

describe('without --local, the CPV and buyer filters are refused, and nothing is sent', () => {
  it('says to add --local, or to send a field the service may accept with --filter', async () => {
    const before = sb.requests.length;
    const cpv = await runCli(['search', '--cpv', '45'], sb.url);
    expect(cpv.code).toBe(2);
    expect(cpv.stderr).toBe(
      `tenders: --cpv filters the local copy that tenders sync keeps: add --local, or send a field the service may accept though its spec does not show it: --filter 'cpvCodes=["45233140"]'\n`,
    );
    expect((await runCli(['export', '--buyer', 'ORG-DEU-0001'], sb.url)).stderr).toContain(`add --local, or send a field the service may accept though its spec does not show it: --filter 'buyerIds=["ORG-DEU-0007"]'`);
    expect((await runCli(['count', '--buyer-name', 'hospital'], sb.url)).stderr).toBe('tenders: --buyer-name filters the local copy that tenders sync keeps: add --local\n');
    expect((await runCli(['search', '--local', '--cpv', 'roads'], sb.url)).stderr).toMatch(/^tenders: --cpv takes CPV codes of 2 to 8 digits.*not 'roads'\n$/);
    expect(sb.requests.length).toBe(before);
  });
});

/** Needs the store's CPV and buyer SQL (LocalSelection's cpv, buyerIds, buyerName; count by cpv). */
describe('--cpv, --buyer and --buyer-name through --local', () => {
  it('select the tenders any of whose codes falls under a code given, of a buyer, by words of its name; count per code and level', async () => {
    const db = join(testDir(), 'tenders.db');
    const tenders = await synced(db);
    const env = { env: { TENDERS_DB: db } };
    const expectIds = async (args: string[], keep: (t: Tender) => boolean) => {
      const r = await runCli(['export', '--local', '-f', 'ndjson', '--sort', 'deadline', ...args], undefined, env);
      expect(r.code, r.stderr).toBe(0);
      const truth = (await runCli(['export', '-f', 'ndjson', '--sort', 'deadline'], sb.url)).stdout;
      expect(ids(r.stdout), args.join(' ')).toEqual(ids(truth).filter((id) => keep(tenders.find((t) => t.id === id)!)));
      return ids(r.stdout);
    };
    const under = (t: Tender, prefixes: string[]) => tenderCpvCodes(t, DEFAULT_CPV_PATHS).some((code) => prefixes.some((p) => code.startsWith(p)));
    expect((await expectIds(['--cpv', '4523'], (t) => under(t, ['4523']))).length).toBeGreaterThan(0);
    await expectIds(['--cpv', '45000000-7,90911200'], (t) => under(t, ['45', '90911200']));
    await expectIds(['--cpv', '33', '--cpv', '72'], (t) => under(t, ['33', '72']));
    const buyer = tenders[0]!.buyer;
    await expectIds(['--buyer', buyer.id], (t) => t.buyer.id === buyer.id);
    await expectIds(['--buyer-name', 'Stadt'], (t) => /\bstadt\b/i.test(t.buyer.name));

    const divisions = await runCli(['count', '--local', '--by', 'cpv', '--cpv-level', '2', '-f', 'csv'], undefined, env);
    expect(divisions.code, divisions.stderr).toBe(0);
    const perDivision = new Map<string, number>();
    for (const t of tenders) for (const d of new Set(tenderCpvCodes(t, DEFAULT_CPV_PATHS).map((code) => code.slice(0, 2)))) perDivision.set(`${d}000000`, (perDivision.get(`${d}000000`) ?? 0) + 1);
    const rows = lines(divisions.stdout).slice(1).map((line) => line.split(','));
    expect(new Map(rows.map(([code, count]) => [code!, Number(count)]))).toEqual(perDivision);

    const table = await runCli(['count', '--local', '--by', 'cpv', '--cpv-level', '2'], undefined, env);
    expect(table.stdout).toMatch(/^45000000 Construction work +\d+$/m);
    const byBuyer = await runCli(['count', '--local', '--by', 'buyer.id', '-f', 'json'], undefined, env);
    expect((JSON.parse(byBuyer.stdout) as { count: number }).count).toBe(tenders.length);
  });
});

describe('tenders show ID', () => {
  it('without a copy: exit 1 saying to sync first', async () => {
    const r = await local(['show', 'T-0000001', '--db', join(testDir(), 'none.db')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: no local copy at .*none\.db yet: run tenders sync first\n$/);
  });

  const engines = [
    { name: 'sqlite', db: async () => join(testDir(), 'tenders.db') },
    ...(POSTGRES_MISSING ? [] : [{ name: 'postgres', db: async () => (await postgres()).createDatabase('show') }]),
  ];
  it.each(engines)('one tender with its names, countdown and history ($name)', async ({ db: location }) => {
    const db = await location();
    await synced(db);
    const { updated } = sb.mutate({ update: 40, seed: 36 });
    expect((await runCli(['sync', 'all', '--db', db], sb.url)).code).toBe(0);
    const env = { env: { TENDERS_DB: db, COLUMNS: '60' } };

    const json = await runCli(['show', updated[0]!, '-f', 'json'], undefined, env);
    expect(json.code, json.stderr).toBe(0);
    const shown = parseJson(json.stdout) as { tender: Tender; history: { firstSeen: string; goneAt: null; syncs: string[]; changes: { kind: string; field: string }[] } };
    const service = lines((await runCli(['export', '-f', 'ndjson'], sb.url)).stdout).find((line) => (parseJson(line) as Tender).id === updated[0]);
    expect(shown.tender).toEqual(parseJson(service!));
    expect(shown.history).toMatchObject({ goneAt: null, syncs: ['all'] });
    expect(shown.history.changes.length).toBeGreaterThan(0);
    expect(shown.history.changes.every((c) => c.kind === 'changed')).toBe(true);

    const text = await runCli(['show', updated[0]!, '--local'], undefined, env);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^id +${updated[0]}$`, 'm'));
    expect(text.stdout).toMatch(/^buyer\n {2}id +ORG-/m);
    expect(text.stdout).toMatch(/^cpvCodes\n {2}1 +\d{8} {2}\S/m);
    expect(text.stdout).toMatch(/^history in the local copy$/m);
    for (const change of shown.history.changes) expect(text.stdout).toContain(`${change.field}: `);
    expect(text.stdout).toContain('→');
    // Wrapped at the width the environment gives (COLUMNS=60) wherever a space allows.
    for (const line of lines(text.stdout)) if (line.length > 60) expect(line.split(/ {2,}/).pop(), line).not.toContain(' ');

    const missing = await runCli(['show', 'T-9999999'], undefined, env);
    expect(missing.code).toBe(1);
    expect(lines(missing.stderr)).toHaveLength(1);
    expect(missing.stderr).toMatch(/^tenders: no tender 'T-9999999' in the local copy at /);
  });
});

describe('cpv-paths: where the codes are', () => {
  it('is checked wherever it is given: a path that is empty or has an empty part is exit 2 with the rule', async () => {
    const rule = 'comma-separated dot paths such as cpvCodes,cpv or lots.cpv,mainCpv (no empty path, no empty part)';
    const before = sb.requests.length;
    expect(await runCli(['--cpv-paths', 'cpvCodes,,cpv', 'search'], sb.url)).toMatchObject({ code: 2, stderr: `tenders: --cpv-paths takes ${rule}, not 'cpvCodes,,cpv'\n` });
    expect(await runCli(['sync', 'all', '--db', join(testDir(), 'x.db')], sb.url, { env: { TENDERS_CPV_PATHS: 'lots..cpv' } })).toMatchObject({
      code: 2,
      stderr: `tenders: TENDERS_CPV_PATHS takes ${rule}, not 'lots..cpv'\n`,
    });
    const set = await local(['config', 'set', 'cpv-paths', 'lots.cpv,']);
    expect(set).toMatchObject({ code: 2, stderr: `tenders: cpv-paths is where a tender's CPV codes are, in quotes: ${rule}, not 'lots.cpv,'\n` });
    expect(sb.requests.length).toBe(before);
  });

  it('names the codes of a table online at the paths it gives', async () => {
    const only = await runCli(['--cpv-paths', 'cpv', 'search', '-n', '3', '-f', 'table', '--columns', 'id,cpv,cpvCodes'], sb.url);
    expect(only.code, only.stderr).toBe(0);
    const rows = lines(only.stdout).slice(1);
    // cpv is named; cpvCodes, which the setting leaves out, is printed as the service sent it.
    for (const row of rows) expect(row).toMatch(/^T-\d+ +\d{8} \S.* +\["\d{8}"/);
    // The same from a profile of the config file; TENDERS_CPV_PATHS beats the file.
    const config = join(testDir(), 'config.toml');
    writeFileSync(config, 'cpv-paths = "cpvCodes,cpv"\n\n[profile.eu]\ncpv-paths = "cpv"\n');
    const args = ['search', '-n', '3', '-f', 'table', '--columns', 'id,cpv,cpvCodes'];
    const profiled = await runCli(['--profile', 'eu', ...args], sb.url, { env: { TENDERS_CONFIG: config } });
    expect(profiled.stdout).toBe(only.stdout);
    const beaten = await runCli(['--profile', 'eu', ...args], sb.url, { env: { TENDERS_CONFIG: config, TENDERS_CPV_PATHS: 'cpvCodes' } });
    for (const row of lines(beaten.stdout).slice(1)) expect(row).toMatch(/^T-\d+ +\d{8} +\d{8} \S/);
    // An Atom feed's CPV line lists the codes at the paths given.
    const cpvLines = async (extra: string[]) => (await runCli([...extra, 'search', '-n', '5', '-f', 'atom'], sb.url)).stdout.match(/CPV: [\d, ]+/g) ?? [];
    expect((await cpvLines([])).some((line) => line.includes(','))).toBe(true);
    const single = await cpvLines(['--cpv-paths', 'cpv']);
    expect(single.length).toBeGreaterThan(0);
    expect(single.every((line) => /^CPV: \d{8}$/.test(line))).toBe(true);
  });

  const engines = [
    { name: 'sqlite', db: async () => join(testDir(), 'tenders.db') },
    ...(POSTGRES_MISSING ? [] : [{ name: 'postgres', db: async () => (await postgres()).createDatabase('cpvpaths') }]),
  ];
  it.each(engines)('a sync reads the codes where it says; a sync with another setting reads every stored tender again; reads use the copy\'s ($name)', async ({ db: location }) => {
    const db = await location();
    const env = { env: { TENDERS_DB: db } };
    const related = '90911200'; // in the sandbox's cpvCodes only, never its cpv
    const selected = async (extra: Record<string, string> = {}) => {
      const r = await runCli(['export', '--local', '-f', 'ndjson', '--cpv', related], undefined, { env: { TENDERS_DB: db, ...extra } });
      expect(r.code, r.stderr).toBe(0);
      return ids(r.stdout);
    };
    const first = await runCli(['sync', 'all'], sb.url, { env: { TENDERS_DB: db, TENDERS_CPV_PATHS: 'cpv' } });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe('');
    expect(await selected()).toEqual([]);
    const tenders = lines((await runCli(['export', '-f', 'ndjson'], sb.url)).stdout).map((line) => parseJson(line) as Tender & { cpvCodes: string[] });
    const holding = tenders.filter((t) => t.cpvCodes.includes(related));
    expect(holding.length).toBeGreaterThan(0);
    // show names the codes where the copy read them: cpv, not the items of cpvCodes.
    const before = await runCli(['show', holding[0]!.id], undefined, env);
    expect(before.stdout).toMatch(/^cpv +\d{8} {2}\S/m);
    expect(before.stdout).toMatch(/^cpvCodes\n {2}1 +\d{8}\n/m);

    const second = await runCli(['sync', 'all'], sb.url, env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toBe(
      "tenders: warning: the copy's CPV codes were read from cpv; this sync's cpv-paths is cpvCodes,cpv, so every stored tender's codes were read again from it (docs/settings.md)\n",
    );
    expect((await selected()).sort()).toEqual(holding.map((t) => t.id).sort());
    // A read uses the copy's codes, whatever the setting says now.
    expect((await selected({ TENDERS_CPV_PATHS: 'cpv' })).sort()).toEqual(holding.map((t) => t.id).sort());
    // --verbose says why: the setting waits for a sync.
    const said = "* cpv-paths cpv: the copy's CPV codes were read from cpvCodes,cpv, and a read uses them as they are; tenders sync reads them again from cpv\n";
    const verbose = await runCli(['--verbose', 'export', '--local', '-f', 'ndjson', '--cpv', related], undefined, { env: { TENDERS_DB: db, TENDERS_CPV_PATHS: 'cpv' } });
    expect(verbose.stderr).toContain(said);
    expect((await runCli(['--verbose', '--cpv-paths', 'cpv', 'show', holding[0]!.id], undefined, env)).stderr).toContain(said);
    expect((await runCli(['--verbose', 'show', holding[0]!.id], undefined, env)).stderr).not.toContain('cpv-paths');
    const after = await runCli(['show', holding[0]!.id], undefined, env);
    expect(after.stdout).toMatch(/^cpvCodes\n {2}1 +\d{8} {2}\S/m);
    expect(after.stdout).toContain(`${related}  `);
    // The same setting again: nothing to say.
    expect(await runCli(['sync', 'all'], sb.url, env)).toMatchObject({ code: 0, stderr: '' });
  });
});
