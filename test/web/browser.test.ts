import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { answerDownload } from '../../src/serve/downloads.js';
import { CHANGES_PER_PAGE } from '../../src/web/pages/changes-page.js';
import { handleWebRequest } from '../../src/web/web-handler.js';
import { filledCopy, syncInto } from '../support/local-copy.js';
import { axeFindings, hasChromium, launchChromium } from '../support/chromium.js';
import { readCsvWithPython } from '../support/python-csv.js';
import { readIcsWithPython } from '../support/readers.js';
import { testDir } from '../support/test-context.js';
import { PLANTED, plantedTenders } from './hostile-page-tenders.js';

/** What a page may never see: a planted script that ran, a CSP report (something tried), a dialog. */
interface Alarms {
  pwned: unknown;
  violations: string[];
}

/**
 * The pages in Debian's chromium, driven by playwright-core over a real
 * node:http server that mounts the page layer as `tenders serve` does, over
 * a SQLite copy holding the sandbox's tenders and planted hostile ones.
 */
describe.skipIf(!hasChromium)('the pages in a browser', () => {
  let server: Server;
  let store: Store;
  let browser: Browser;
  let base: string;
  const dialogs: string[] = [];

  beforeAll(async () => {
    const { db, docs } = await filledCopy(300, 5);
    await syncInto(db, 'planted', plantedTenders());
    await syncInto(db, 'planted', plantedTenders().map((t) => (t.id === 'P-2' ? { ...t, title: PLANTED.quote } : t)));
    await syncInto(db, 'all', docs.slice(1));
    // A sync whose second run touched 250 tenders: more changes than /changes shows on a page.
    await syncInto(db, 'paged', docs.slice(0, 250));
    await syncInto(db, 'paged', docs.slice(0, 250).map((doc, i) => ({ ...doc, note: `looked at ${i}` })));
    store = await openStore(db, { mode: 'read' });
    // The mount, as docs/web.md shows it for node:http, and the sync's files beside the pages, as tenders serve serves them.
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const request = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, host: req.headers.host };
      const deps = { store, now: () => new Date() };
      answerDownload(request, deps)
        .then(async (download) => download ?? (await handleWebRequest(request, deps)))
        .then(async (answer) => {
          if (answer === undefined) return void res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"message":"not found"}');
          res.writeHead(answer.status, answer.headers);
          if (typeof answer.body === 'string') return void res.end(answer.body);
          for await (const chunk of answer.body) res.write(chunk);
          res.end();
        })
        .catch((err: unknown) => res.writeHead(500).end(String(err)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await store?.close();
  });

  async function open(width = 1280, javaScriptEnabled = true): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 900 }, acceptDownloads: true, javaScriptEnabled });
    // Run before any script of the page (and outside its CSP): the alarms a planted script or a blocked one would set off.
    await context.addInitScript(() => {
      const w = window as unknown as { __violations: string[] };
      w.__violations = [];
      document.addEventListener('securitypolicyviolation', (e) => w.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    const page = await context.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    return page;
  }

  const alarms = (page: Page): Promise<Alarms> =>
    page.evaluate(() => ({ pwned: (window as unknown as { __pwned?: unknown }).__pwned, violations: (window as unknown as { __violations: string[] }).__violations }));

  it('types a search, submits it, follows Next, opens a tender and comes back', async () => {
    const page = await open();
    await page.goto(`${base}/`);
    await page.getByLabel('Buyer countries').fill('deu,fra,pol,ita,esp');
    await page.getByLabel('Statuses').fill('open,closed');
    await page.getByLabel('Sort by').selectOption('deadline');
    await page.getByLabel('Search', { exact: true }).press('Enter');
    await page.waitForURL(/\?q=&buyerCountries=/);
    const url = new URL(page.url());
    expect(url.searchParams.get('buyerCountries')).toBe('deu,fra,pol,ita,esp');
    expect(url.searchParams.get('sortBy')).toBe('deadline');
    const count = await page.locator('.count').innerText();
    expect(Number(/^([\d,]+) tenders match/.exec(count)![1]!.replaceAll(',', ''))).toBeGreaterThan(25);
    const first = await page.locator('td.title a').allInnerTexts();

    await page.getByRole('link', { name: 'Next →' }).click();
    await page.waitForURL(/cursor=L1\./);
    const second = await page.locator('td.title a').allInnerTexts();
    expect(second.length).toBeGreaterThan(0);
    expect(second).not.toEqual(first);
    const secondUrl = page.url();

    const title = second[0]!;
    await page.locator('td.title a').first().click();
    await page.waitForURL(/\/tenders\//);
    expect(await page.locator('h1').innerText()).toBe(title);
    await page.goBack();
    expect(page.url()).toBe(secondUrl);
    await page.getByRole('link', { name: '← Previous' }).click();
    await page.waitForURL((u) => !u.searchParams.has('cursor'));
    expect(await page.locator('td.title a').allInnerTexts()).toEqual(first);
  });

  it('works with JavaScript off: the form is a plain GET form, the results and paging are server-made', async () => {
    const page = await open(375, false);
    await page.goto(`${base}/`);
    await page.getByLabel('Sort by').selectOption('estimatedValue');
    await page.getByRole('button', { name: 'Search' }).first().click();
    await page.waitForURL(/sortBy=estimatedValue/);
    const first = await page.locator('td.num').first().innerText();
    await page.getByRole('link', { name: 'Next →' }).click();
    await page.waitForURL(/cursor=/);
    const next = await page.locator('td.num').first().innerText();
    expect(Number(next.replaceAll(',', ''))).toBeLessThanOrEqual(Number(first.replaceAll(',', '')));
    await page.context().close();
  });

  it('reaches every field of the search form by Tab, in order, each focus visible', async () => {
    const page = await open();
    await page.goto(`${base}/`);
    const order: string[] = [];
    for (let i = 0; i < 40 && !order.includes('f-sortOrder'); i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        return { id: el.id, outline: getComputedStyle(el).outlineStyle };
      });
      if (focused.id.startsWith('f-')) {
        order.push(focused.id);
        expect(focused.outline, focused.id).toBe('solid');
      }
    }
    expect(order).toEqual(['f-q', 'f-buyerCountries', 'f-statuses', 'f-publishedFrom', 'f-publishedTo', 'f-deadlineFrom', 'f-deadlineTo', 'f-minValueEur', 'f-maxValueEur', 'f-cpvCodes', 'f-buyerIds', 'f-buyerName', 'f-sync', 'f-sortBy', 'f-sortOrder']);
  });

  it('follows the add-to-calendar link and reads the ICS it downloads', async () => {
    const page = await open();
    await page.goto(`${base}/tenders/P-5`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Add to calendar' }).click()]);
    expect(download.suggestedFilename()).toBe('tender-P-5.ics');
    const file = join(testDir(), 'tender.ics');
    await download.saveAs(file);
    const ics = readFileSync(file, 'utf8');
    expect(ics).toMatch(/^BEGIN:VCALENDAR\r\n/);
    expect(ics).toContain('DTSTART:20270301T120000Z');
    expect(ics.replace(/\r\n /g, '')).toContain('Ambulances 🚑 and roadworks 🚧 in 東京');
  });

  it("downloads the page's CSV of a selection: the rows the page counts", async () => {
    const page = await open();
    await page.goto(`${base}/?sync=all&statuses=open&sortBy=deadline`);
    const count = Number(/^([\d,]+) tenders? match/.exec(await page.locator('.count').innerText())![1]!.replaceAll(',', ''));
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'CSV', exact: true }).click()]);
    expect(download.suggestedFilename()).toBe('all-tenders.csv');
    const file = join(testDir(), 'all.csv');
    await download.saveAs(file);
    const [header, ...rows] = readCsvWithPython(readFileSync(file, 'utf8'));
    expect(header![0]).toBe('id');
    expect(count).toBeGreaterThan(5);
    expect(rows.length).toBe(count);
    await page.context().close();
  });

  it("follows the page's calendar link and parses the ICS it downloads", async () => {
    const page = await open();
    await page.goto(`${base}/?sync=all&deadlineFrom=2020-01-01`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Calendar (ICS)' }).click()]);
    expect(download.suggestedFilename()).toBe('all-deadlines.ics');
    const file = join(testDir(), 'all.ics');
    await download.saveAs(file);
    const { events } = readIcsWithPython(readFileSync(file, 'utf8'));
    expect(events.length).toBeGreaterThan(5);
    expect(events[0]!.ALARMS).toEqual(['-P7D', '-P1D']);
    await page.context().close();
  });

  it('/changes: Older pages back by cursor, each page in the URL, the back button returns; the form keeps its state in the URL too', async () => {
    const page = await open();
    await page.goto(`${base}/changes?since=30d&sync=paged`);
    const firstUrl = page.url();
    const first = await page.locator('ul.changes li').allInnerTexts();
    expect(first).toHaveLength(CHANGES_PER_PAGE);
    expect(await page.getByRole('status').innerText()).toMatch(/^250 changes in all, newest first: 200 here/);
    await page.getByRole('link', { name: 'Older →' }).click();
    await page.waitForURL(/cursor=C1\./);
    const second = await page.locator('ul.changes li').allInnerTexts();
    expect(second).toHaveLength(50);
    expect(new Set([...first, ...second]).size).toBe(250);
    await page.goBack();
    expect(page.url()).toBe(firstUrl);
    expect(await page.locator('ul.changes li').allInnerTexts()).toEqual(first);
    await page.goForward();
    await page.getByRole('link', { name: '← Newest' }).click();
    await page.waitForURL((u) => !u.searchParams.has('cursor'));
    expect(await page.locator('ul.changes li').allInnerTexts()).toEqual(first);
    await page.getByLabel('Since').fill('2020-01-01');
    await page.getByLabel('Sync').selectOption('planted');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/since=2020-01-01&sync=planted/);
    await page.goBack();
    expect(page.url()).toBe(firstUrl);
    await page.context().close();
  });

  const PAGES = ['/', '/?sync=planted', '/?q=roads&sortBy=deadline', '/tenders/P-1', '/tenders/P-2', '/tenders/P-3', '/tenders/P-6', '/changes?since=30d', '/changes?sync=planted', '/syncs', '/?publishedFrom=never'];

  // One test per page and width, each well inside a test's time limit on a loaded machine.
  const CASES = [375, 1280].flatMap((width) => PAGES.map((path, i) => ({ width, path, i })));
  it.each(CASES)('$path at $width px: no planted script runs, the CSP never has to block one, no page-level horizontal scroll, nothing serious for axe', async ({ width, path, i }) => {
    const page = await open(width);
    await page.goto(`${base}${path}`, { waitUntil: 'load' });
    expect(await alarms(page)).toEqual({ pwned: undefined, violations: [] });
    // Only a table's own box may scroll sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await axeFindings(page)).toEqual([]);
    await page.screenshot({ path: join(testDir(), `page-${i}-${width}.png`), fullPage: true });
    await page.context().close();
    expect(dialogs).toEqual([]);
  });

  it('shows the planted titles, buyers and URLs as text', async () => {
    const page = await open();
    await page.goto(`${base}/?sync=planted`);
    const titles = await page.locator('td.title a').allInnerTexts();
    expect(titles).toEqual(expect.arrayContaining([PLANTED.script, PLANTED.quote, PLANTED.emoji, PLANTED.bidi, PLANTED.long]));
    await page.goto(`${base}/tenders/P-1`);
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(await page.locator('dd', { hasText: PLANTED.javascriptUrl }).count()).toBe(1);
    expect(await page.locator('dl.summary dd', { hasText: 'Evil GmbH' }).innerText()).toBe('<b onmouseover="window.__pwned=1">Evil GmbH</b> (DEU)');
    // P-2's title was the img tag before the second run: its history shows old → new as text.
    await page.goto(`${base}/tenders/P-2`);
    expect(await page.locator('ol.timeline').innerText()).toContain(`"${PLANTED.img.replaceAll('"', '\\"')}" → "${PLANTED.quote.replaceAll('"', '\\"')}"`);
    expect(await alarms(page)).toEqual({ pwned: undefined, violations: [] });
  });

  it('measures the search page\'s load event on loopback (reported, not a limit)', async () => {
    const page = await open();
    await page.goto(`${base}/`, { waitUntil: 'load' });
    const ms = await page.evaluate(() => {
      const [nav] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
      return nav!.loadEventStart;
    });
    expect(ms).toBeGreaterThan(0);
    console.info(`web: the search page's load event fired ${ms.toFixed(0)} ms after navigation started (loopback, 25 rows)`);
  });
});
