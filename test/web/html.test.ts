import { describe, expect, it } from 'vitest';
import { RawNumber } from '../../src/model/exact-json.js';
import type { ChangeRecord } from '../../src/store/store.js';
import { data, escapeText, Html, html } from '../../src/web/html.js';
import { tenderPage } from '../../src/web/pages/tender-page.js';
import { PLANTED, plantedTenders } from './hostile-page-tenders.js';

const NOW = new Date('2027-02-24T12:00:00Z');

describe('the html template tag', () => {
  it('escapes every interpolated value, in text and in attributes', () => {
    const out = html`<a title="${'"><script>x</script>'}">${"<img src=x onerror='y'>"}</a>`.toString();
    expect(out).toBe('<a title="&quot;&gt;&lt;script&gt;x&lt;/script&gt;">&lt;img src=x onerror=&#39;y&#39;&gt;</a>');
  });

  it('puts fragments in as they are, once, and lists of them in order; nothing for undefined, null and false', () => {
    const inner = html`<b>${'a&b'}</b>`;
    expect(html`<p>${inner}${[inner, 'c<']}${undefined}${null}${false}${0}</p>`.toString()).toBe('<p><b>a&amp;b</b><b>a&amp;b</b>c&lt;0</p>');
  });

  it('cannot be given a fragment made from a string outside the tag', () => {
    expect(() => new Html(Symbol('html'), '<script>')).toThrow(/made by the html template tag only/);
  });

  it('shows control characters as their pictures, C1 ones as U+FFFD, and keeps tabs and line breaks', () => {
    expect(escapeText('a\u001b[31mb\u0000c\u0007\u009b2J\td\r\n')).toBe('a\u241b[31mb\u2400c\u2407\ufffd2J\td\r\n');
  });

  it('isolates service text in <bdi>, so a right-to-left override cannot reorder the page around it', () => {
    expect(data(PLANTED.bidi).toString()).toBe(`<bdi>${PLANTED.bidi}</bdi>`);
  });
});

describe('a tender page with hostile data', () => {
  const history: ChangeRecord[] = [
    { run: 2, sync: 'planted"><i>', id: 'P-1', kind: 'changed', field: 'title', old: '<script>old()</script>', new: PLANTED.script, at: '2026-12-02T08:00:00.000Z' },
  ];

  for (const tender of plantedTenders()) {
    it(`renders ${String(tender.id)} as text: no tag, handler or javascript: link of the data reaches the markup`, () => {
      const page = tenderPage(String(tender.id), { tender, history }, NOW).toString();
      expect(page).not.toMatch(/<script>(?!<\/)|<img|<svg|<b onmouseover|<i>/i);
      expect(page).not.toMatch(/href="javascript:/i);
      expect(page).not.toMatch(/\son(error|load|mouseover)=["']?window/i);
      expect(page).toContain(escapeText(String(tender.title)));
      // The one script of the page is its own file.
      expect(page.match(/<script/g)).toEqual(['<script']);
      expect(page).toContain('<script src="/static/page.js" defer></script>');
    });
  }

  it('keeps a 2 000-character title whole and emoji as they are', () => {
    const [, , , , emoji, long] = plantedTenders();
    expect(PLANTED.long).toHaveLength(2000);
    expect(tenderPage('P-6', { tender: long!, history: [] }, NOW).toString()).toContain(`<h1 id="tender-title"><bdi>${escapeText(PLANTED.long)}</bdi></h1>`);
    expect(tenderPage('P-5', { tender: emoji!, history: [] }, NOW).toString()).toContain('Ambulances 🚑 and roadworks 🚧 in 東京');
  });

  it('shows a javascript: URL as text only and links an https one', () => {
    const [evil, good] = plantedTenders();
    expect(tenderPage('P-1', { tender: evil!, history }, NOW).toString()).toContain('<dd><bdi>javascript:window.__pwned=&quot;url&quot;</bdi></dd>');
    expect(tenderPage('P-2', { tender: good!, history }, NOW).toString()).toContain('<a href="https://tenders.example.org/notices/P-2" rel="noopener noreferrer nofollow">');
  });

  it('writes every field as a definition list, numbers with all their digits, the raw JSON behind one <details>, the history with old → new', () => {
    const tender = { ...plantedTenders()[1]!, estimatedValue: { amountEur: new RawNumber('12345678901234567890.5') }, lots: [{ n: 1 }, { n: 2 }] };
    const page = tenderPage('P-2', { tender, history }, NOW).toString();
    expect(page).toContain('<dt><bdi>amountEur</bdi></dt><dd>12345678901234567890.5</dd>');
    expect(page).toContain('<ol class="values"><li><dl class="fields"><dt><bdi>n</bdi></dt><dd>1</dd></dl></li>');
    expect(page).toMatch(/<details class="raw"><summary>Raw JSON<\/summary><pre><code>\{\n  &quot;id&quot;: &quot;P-2&quot;/);
    expect(page).toContain('<code><bdi>&quot;&lt;script&gt;old()&lt;/script&gt;&quot;</bdi></code> →');
    expect(page).toContain('(sync <bdi>planted&quot;&gt;&lt;i&gt;</bdi>)');
    expect(page).toContain('<span class="countdown" data-deadline="2027-03-01T12:00:00Z">in 5 days</span>');
    expect(page).toContain('<a href="/tenders/P-2.ics" download>Add to calendar</a>');
  });

  it('says a gone tender is gone and still shows its history', () => {
    const page = tenderPage('P-9', { tender: undefined, history: [{ ...history[0]!, kind: 'gone', field: null, old: undefined, new: undefined }] }, NOW).toString();
    expect(page).toContain('The copy no longer holds this tender');
    expect(page).toContain('<span class="kind kind-gone">gone</span>');
  });
});
