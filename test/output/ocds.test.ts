import { describe, expect, it } from 'vitest';
import type { FormatOptions } from '../../src/output/formatter.js';
import { OcdsFormatter } from '../../src/output/formats/ocds-formatter.js';
import { pagedTenders } from '../support/fake-client.js';
import { runInProcess } from '../support/run.js';
import { testDir } from '../support/test-context.js';
import { join } from 'node:path';
import { HOSTILE_TITLE, hostileTenders } from '../support/hostile-tenders.js';
import { ocdsValidator } from '../support/readers.js';

const base: FormatOptions = { header: true, headerStyle: 'path', excelSafe: false, color: false };
const validate = ocdsValidator();
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

type Release = { ocid: string; id: string; date: string; buyer?: unknown; parties?: unknown; tender: Record<string, unknown> };

function write(pages = [hostileTenders()], opts: FormatOptions = base): { text: string; formatter: OcdsFormatter } {
  const formatter = new OcdsFormatter(opts);
  let text = '';
  for (const page of pages) text += String(formatter.page(page));
  return { text: text + String(formatter.end()), formatter };
}

describe('ocds', () => {
  it('writes a release package that validates against the OCDS 1.1.5 schema, a release per tender', () => {
    const { text, formatter } = write([hostileTenders().slice(0, 2), hostileTenders().slice(2)]);
    const pkg = JSON.parse(text) as { version: string; publishedDate: string; uri: string; releases: Release[] };
    expect(validate(pkg)).toEqual({ valid: true, errors: 'No errors' });
    // The validator does look into releases (the release schema resolved locally by its id).
    expect(validate({ ...pkg, releases: [{ ...pkg.releases[0], tag: ['no-such-tag'] }] }).valid).toBe(false);
    expect(pkg.version).toBe('1.1');
    expect(pkg.publishedDate).toMatch(DATE_TIME);
    const [hostile, bare, long] = pkg.releases;
    expect(hostile).toMatchObject({
      ocid: 'ocds-tenders-T-1',
      date: '2026-11-23T00:00:00Z',
      tag: ['tender'],
      initiationType: 'tender',
      buyer: { id: 'ORG-1', name: 'Büro <&> "Ost"' },
      parties: [{ id: 'ORG-1', name: 'Büro <&> "Ost"', roles: ['buyer'], address: { countryName: 'DEU' } }],
      tender: { id: 'T-1', title: HOSTILE_TITLE, status: 'active', value: { amount: 1234.5, currency: 'EUR' }, tenderPeriod: { endDate: '2027-01-14T12:00:00Z' } },
    });
    expect(bare!.tender).toEqual({ id: 'T-2', title: 'No deadline, no value', status: 'active' });
    expect(long!.tender.status).toBeUndefined();
    expect(long!.tender.tenderPeriod).toEqual({ endDate: '2027-02-01T07:30:00Z' });
    expect(text).toContain('"value":{"amount":12345678901234567890.5,"currency":"EUR"}');
    expect(formatter.warnings()).toEqual(['OCDS has no tender status for under-review (1): tender.status is left out of those releases']);
  });

  it('gives a release a new id when the tender changes, the same one when it does not', () => {
    const [a] = hostileTenders();
    const ids = (item: Record<string, unknown>) => (JSON.parse(write([[item]]).text) as { releases: Release[] }).releases[0]!.id;
    expect(ids(a!)).toBe(ids(hostileTenders()[0]!));
    expect(ids({ ...a!, status: 'awarded' })).not.toBe(ids(a!));
  });

  it('uses --ocid-prefix, and continues a resumed file as one package', () => {
    const opts = { ...base, ocidPrefix: 'ocds-a1b2c3-' };
    const [a, b, c] = hostileTenders();
    const first = new OcdsFormatter(opts);
    const head = String(first.page([a!, b!]));
    const resumed = new OcdsFormatter(opts, first.state());
    const pkg = JSON.parse(head + String(resumed.page([c!])) + String(resumed.end())) as { releases: Release[] };
    expect(validate(pkg).valid).toBe(true);
    expect(pkg.releases.map((r) => r.ocid)).toEqual(['ocds-a1b2c3-T-1', 'ocds-a1b2c3-T-2', 'ocds-a1b2c3-T-3']);
  });

  it('a resumed package still counts the statuses OCDS has no code for that it wrote before the interruption, through the saved state', () => {
    const [a, b, c] = hostileTenders();
    const first = new OcdsFormatter(base);
    first.page([a!, b!, c!, { ...c!, id: 'T-4', status: 'suspended-ish' }]);
    // As --resume keeps it: written to its state file as JSON, read back.
    const saved = JSON.parse(JSON.stringify(first.state())) as ReturnType<OcdsFormatter['state']>;
    const resumed = new OcdsFormatter(base, saved);
    resumed.page([{ ...c!, id: 'T-5' }]);
    resumed.end();
    expect(resumed.warnings()).toEqual(['OCDS has no tender status for under-review (2), suspended-ish (1): tender.status is left out of those releases']);
  });

  it('a status named as a property of every object (__proto__, constructor) is no OCDS code: left out, and counted', () => {
    const [a] = hostileTenders();
    const { text, formatter } = write([[{ ...a!, id: 'P-1', status: '__proto__' }, { ...a!, id: 'P-2', status: 'constructor' }]]);
    const pkg = JSON.parse(text) as { releases: Release[] };
    expect(validate(pkg).valid).toBe(true);
    expect(pkg.releases.map((r) => r.tender.status)).toEqual([undefined, undefined]);
    expect(formatter.warnings()).toEqual(['OCDS has no tender status for __proto__ (1), constructor (1): tender.status is left out of those releases']);
  });

  it('writes an empty package as valid JSON and says OCDS wants a release', () => {
    const { text, formatter } = write([]);
    expect(JSON.parse(text)).toMatchObject({ version: '1.1', releases: [] });
    expect(formatter.warnings()).toEqual(['the release package has no releases: OCDS asks for at least one, so validators will refuse it']);
  });
});

describe('ocds warnings, where no one is at a terminal', () => {
  it('says what the package lost on stderr in cron (no terminal, no --verbose); --quiet alone hides it', async () => {
    const file = join(testDir(), 'x.ocds.json');
    const none = await runInProcess(['export', '-c', 'ZZZ', '-o', file], pagedTenders(0));
    expect(none.code).toBe(0);
    expect(none.stderr).toBe('tenders: warning: the release package has no releases: OCDS asks for at least one, so validators will refuse it\n');
    const suspended = await runInProcess(['search', '-f', 'ocds'], pagedTenders(3, (i) => ({ status: i === 2 ? 'suspended' : 'open' })));
    expect(suspended.code).toBe(0);
    expect(suspended.stderr).toBe('tenders: warning: OCDS has no tender status for suspended (1): tender.status is left out of those releases\n');
    const quiet = await runInProcess(['export', '-c', 'ZZZ', '-o', file, '-q'], pagedTenders(0));
    expect(quiet).toMatchObject({ code: 0, stderr: '' });
  });
});
