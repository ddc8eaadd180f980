import { afterEach, describe, expect, it, vi } from 'vitest';
import { atomEntry, AtomFormatter, atomFoot, atomHead, changeEntry, escapeXml, watchFeed } from '../../src/output/formats/atom-formatter.js';
import type { FormatOptions } from '../../src/output/formatter.js';
import { HOSTILE_TITLE, hostileTenders } from '../support/hostile-tenders.js';
import { readAtomWithPython, xmllintErrors } from '../support/readers.js';

const base: FormatOptions = { header: true, headerStyle: 'path', excelSafe: false, color: false };

function write(pages = [hostileTenders()], opts: FormatOptions = base): string {
  const formatter = new AtomFormatter(opts);
  let text = '';
  for (const page of pages) text += String(formatter.page(page));
  return text + String(formatter.end());
}

/** What XML 1.0 can hold of a text: its illegal characters as U+FFFD, CR as feedparser gives it back. */
const xmlSafe = (text: string) => text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g, '\ufffd');

describe('atom', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes a feed that xmllint finds well-formed and feedparser reads back: ids, titles, summaries, the tender as JSON', () => {
    const xml = write();
    expect(xmllintErrors(xml)).toBe('');
    const feed = readAtomWithPython(xml);
    expect(feed.bozo).toBe(false);
    expect(feed.feed).toMatchObject({ id: 'urn:tenders:feed:search', title: 'Tenders' });
    expect(feed.entries.map((e) => e.id)).toEqual(['urn:tenders:T-1', 'urn:tenders:T-2', 'urn:tenders:T-3']);
    const [hostile, bare, long] = feed.entries;
    expect(hostile!.title).toBe(xmlSafe(HOSTILE_TITLE));
    expect(hostile!.summary).toBe('Buyer: Büro <&> "Ost" (DEU); Deadline: 2027-01-14T12:00:00Z; Estimated value: 1,234.5 EUR');
    expect(hostile!.link).toBe('https://tenders.example.org/notices/T-1');
    expect(hostile!.updated).toBe('2026-11-23T00:00:00Z');
    // The JSON is the tender's, exact: its escapes carry the control characters.
    expect(JSON.parse(hostile!.json)).toEqual(hostileTenders()[0]);
    expect(bare!.summary).toBe('Buyer: Gmina (POL); Deadline: none');
    expect(long!.json).toContain('"amountEur":12345678901234567890.5');
    // C1 controls, which feedparser would read as cp1252, travel as JSON escapes.
    const c1 = readAtomWithPython(write([[{ id: 'c', title: 'CSI \u009b2J' }]])).entries[0]!;
    expect(c1.title).toBe('CSI \ufffd2J');
    expect(JSON.parse(c1.json)).toEqual({ id: 'c', title: 'CSI \u009b2J' });
  });

  it('writes a well-formed empty feed, and projects the content with --columns', () => {
    const empty = write([]);
    expect(xmllintErrors(empty)).toBe('');
    expect(readAtomWithPython(empty).entries).toEqual([]);
    const projected = readAtomWithPython(write([hostileTenders()], { ...base, columns: ['id', 'buyer.name'] }));
    expect(JSON.parse(projected.entries[0]!.json)).toEqual({ id: 'T-1', buyer: { name: 'Büro <&> "Ost"' } });
  });

  it("an entry's content is for a person: buyer, country, deadline with a countdown, value in EUR, CPV codes", () => {
    const tender = {
      id: 'T-9',
      title: 'Neubau einer Grundschule',
      publicationDate: '2026-03-01',
      deadline: '2026-04-01T12:00:00Z',
      buyer: { name: 'Stadt Köln & Umland', country: 'DEU' },
      estimatedValue: { amountEur: 1500000 },
      cpvCodes: ['45214200-2', '45000000'],
    };
    vi.setSystemTime(new Date('2026-03-20T12:00:00Z'));
    const formatter = new AtomFormatter(base);
    const xml = String(formatter.page([tender])) + String(formatter.end());
    expect(xmllintErrors(xml)).toBe('');
    const entry = readAtomWithPython(xml).entries[0]!;
    expect(entry.content).toBe(
      '<ul><li>Buyer: Stadt Köln &amp; Umland (DEU)</li><li>Deadline: 2026-04-01 12:00 UTC (in 12 days)</li><li>Estimated value: 1,500,000 EUR</li><li>CPV: 45214200, 45000000</li></ul>',
    );
    expect(entry.content).not.toContain('{');
    expect(JSON.parse(entry.json)).toEqual(tender);
  });

  it("a watch's entry says what changed, each field with its value now; a gone one links the notice the watch kept", () => {
    const watch = { name: 'deu', since: '2026-03-19T00:00:00.000Z' };
    const now = new Date('2026-03-20T12:00:00Z');
    const tender = { id: 'T-9', title: 'Neubau', deadline: '2026-04-01T12:00:00Z', estimatedValue: { amountEur: 5 }, buyer: { name: 'Köln', country: 'DEU' } };
    const changed = changeEntry({ change: 'changed', changedFields: ['deadline', 'estimatedValue.amountEur'], tender }, watch, now, '{}');
    expect(changed.content).toBe(
      '<ul><li>Changed: deadline → 2026-04-01 12:00 UTC; estimatedValue.amountEur → 5</li><li>Buyer: Köln (DEU)</li><li>Deadline: 2026-04-01 12:00 UTC (in 12 days)</li><li>Estimated value: 5 EUR</li></ul>',
    );
    const gone = changeEntry({ change: 'gone', changedFields: [], tender: { id: 'T-8', title: 'Alt', url: 'https://tenders.example.org/notices/T-8' } }, watch, now, '{}');
    expect(gone.link).toBe('https://tenders.example.org/notices/T-8');
    expect(gone.content).toMatch(/^<ul><li>No longer listed by the service/);
    const xml = atomHead(watchFeed('deu', now)) + atomEntry(changed) + atomEntry(gone) + atomFoot();
    expect(xmllintErrors(xml)).toBe('');
    expect(readAtomWithPython(xml).entries[1]!.link).toBe('https://tenders.example.org/notices/T-8');
  });

  it("a feed's id derives from its query and its service: two searches do not share one, paging does not change it", () => {
    const id = (service: string, body: Record<string, unknown>) =>
      readAtomWithPython(write([[{ id: 'x' }]], { ...base, feedSource: { service, path: '/api/v1/tenders/search', body } })).feed;
    const deu = id('https://tenders.example.org/', { buyerCountries: ['DEU'], limit: 20 });
    expect(deu.id).toMatch(/^urn:tenders:feed:[0-9a-f]{32}$/);
    expect(deu.title).toBe('Tenders from tenders.example.org');
    expect(id('https://tenders.example.org/', { limit: 100, buyerCountries: ['DEU'], cursor: 'c2' }).id).toBe(deu.id);
    expect(id('https://tenders.example.org/', { buyerCountries: ['FRA'], limit: 20 }).id).not.toBe(deu.id);
    expect(id('http://127.0.0.1:8787/', { buyerCountries: ['DEU'], limit: 20 }).id).not.toBe(deu.id);
    expect(id('file:///data/tenders.db', { countries: ['DEU'] }).title).toBe('Tenders from the local copy');
  });

  it('continues a resumed file without a second head', () => {
    const [a, b, c] = hostileTenders();
    const first = new AtomFormatter(base);
    const head = String(first.page([a!, b!]));
    const resumed = new AtomFormatter(base, first.state());
    const xml = head + String(resumed.page([c!])) + String(resumed.end());
    expect(xmllintErrors(xml)).toBe('');
    expect(readAtomWithPython(xml).entries).toHaveLength(3);
  });

  it('gives other feeds (a watch, a rolling --feed) its head, entry and foot writers', () => {
    const xml =
      atomHead({ id: 'urn:tenders:watch:deu', title: 'Watch <deu>', updated: new Date('2026-11-25T00:00:00Z'), self: 'https://x.example/a?b=1&c=2' }) +
      atomEntry({ id: 'urn:tenders:T-1:changed:2026-11-25', title: 'changed: a & b', updated: new Date('2026-11-25T00:00:00Z'), summary: 'status' }) +
      atomFoot();
    expect(xmllintErrors(xml)).toBe('');
    const feed = readAtomWithPython(xml);
    expect(feed.feed.title).toBe('Watch <deu>');
    expect(feed.entries[0]).toMatchObject({ id: 'urn:tenders:T-1:changed:2026-11-25', title: 'changed: a & b' });
  });

  it('links the notice only when its URL is http(s): javascript:, line breaks or spaces leave the link out', () => {
    const link = (url: string) => {
      const xml = write([[{ id: 'x', title: 't', url }]]);
      expect(xmllintErrors(xml)).toBe('');
      return /<link rel="alternate" href="([^"]*)"\/>/.exec(xml)?.[1];
    };
    expect(link('https://tenders.example.org/n/1?a=1&b=2')).toBe('https://tenders.example.org/n/1?a=1&amp;b=2');
    expect(link('http://example.org/x')).toBe('http://example.org/x');
    for (const bad of ['javascript:alert(1)', 'javascript:alert(1)\r\nX-Evil: 1', 'https://x.org/\r\nX-Evil: 1', 'https://x.org/a b', 'https://x.org/\u009b', 'data:text/html,x', 'https://']) {
      expect(link(bad), bad).toBeUndefined();
    }
  });

  it('escapes markup, keeps CR and replaces what XML 1.0 cannot hold', () => {
    expect(escapeXml('a&b<c>d"e\r\u0000\u001b\ufffe\ud800x')).toBe('a&amp;b&lt;c&gt;d"e&#13;\ufffd\ufffd\ufffd\ufffdx');
    expect(escapeXml('🚧 \u009b2J \u007f')).toBe('🚧 \ufffd2J \ufffd');
  });
});
