import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LocalSelection } from '../../src/model/local-selection.js';
import type { Store } from '../../src/store/store.js';
import { CHANGES_PER_PAGE } from '../../src/web/pages/changes-page.js';
import { CONTENT_SECURITY_POLICY } from '../../src/web/web-handler.js';
import { runCli } from '../support/cli.js';
import { filledCopy, syncInto } from '../support/local-copy.js';
import { plantedTenders } from './hostile-page-tenders.js';
import { relLink, resultIds, webClient, type Page } from './web-client.js';

/** Every id of a selection in the store's order. */
async function allIds(store: Store, selection: LocalSelection): Promise<string[]> {
  const ids: string[] = [];
  for await (const batch of store.select(selection)) ids.push(...batch.map((row) => String(row.id)));
  return ids;
}

describe('the pages over a SQLite copy synced from the sandbox', () => {
  let client: Awaited<ReturnType<typeof webClient>>;
  let db: string;
  let docs: Record<string, unknown>[];

  beforeEach(async () => {
    ({ db, docs } = await filledCopy(400, 11));
    // A second run: one tender's deadline moved, one gone; a second sync holding planted hostile tenders.
    const moved = { ...docs[0]!, deadline: '2027-04-15T12:00:00Z' };
    await syncInto(db, 'all', [moved, ...docs.slice(1, -1)]);
    await syncInto(db, 'planted', plantedTenders());
    client = await webClient(db);
  });
  afterEach(() => client.close());

  it('answers only its own paths: the API, downloads and anything else are left to the server that mounts it', async () => {
    for (const path of ['/api/v1/tenders/search', '/syncs/all/tenders.csv', '/healthz', '/tenders', '/tenders/a/b', '/static/other.css']) {
      expect(await client.get(path), path).toBeUndefined();
    }
    const post = await client.get('/', 'POST');
    expect(post?.status).toBe(405);
    expect(post?.headers.Allow).toBe('GET, HEAD');
    expect((await client.get('/syncs', 'HEAD'))?.body).toBe('');
  });

  it('/: the first page of every tender, its exact count and a strict CSP, a form field per filter named as the API names it', async () => {
    const page = (await client.get('/'))!;
    expect(page.status).toBe(200);
    expect(page.headers['Content-Security-Policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toMatch(/^default-src 'self';/);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe/);
    const { total } = await client.store.count({});
    expect(page.body).toContain(`<strong>${total.toLocaleString('en-US')} tenders</strong> match.`);
    expect(resultIds(page.body)).toEqual((await allIds(client.store, {})).slice(0, 25));
    for (const name of ['q', 'buyerCountries', 'statuses', 'publishedFrom', 'publishedTo', 'deadlineFrom', 'deadlineTo', 'minValueEur', 'maxValueEur', 'sync', 'sortBy', 'sortOrder']) {
      expect(page.body, name).toMatch(new RegExp(`<label for="f-${name}">[^<]+</label>\\n<(input|select)[^>]* id="f-${name}" name="${name}" aria-describedby="f-${name}-hint"`));
    }
    expect(page.body).toContain('full-text query over title and buyer name (words, &quot;phrases&quot;, prefix*, OR, NOT)');
  });

  it('/: a selection gives the rows and count of search --local with the same values, and keeps its values in the form', async () => {
    const query = '?buyerCountries=deu,fra&statuses=open&minValueEur=1e4&sortBy=deadline&sortOrder=desc&deadlineFrom=2026-01-01&limit=5';
    const page = (await client.get(query))!;
    expect(page.status).toBe(200);
    const cli = await runCli(['search', '--local', '--db', db, '-c', 'deu,fra', '-s', 'open', '--min-value', '1e4', '--sort', 'deadline', '--order', 'desc', '--deadline-after', '2026-01-01', '-n', '5', '-f', 'ndjson'], undefined);
    expect(cli.code, cli.stderr).toBe(0);
    const cliIds = cli.stdout.trim().split('\n').map((line) => String((JSON.parse(line) as { id: string }).id));
    expect(cliIds).toHaveLength(5);
    expect(resultIds(page.body)).toEqual(cliIds);
    const count = await runCli(['count', '--local', '--db', db, '-c', 'deu,fra', '-s', 'open', '--min-value', '1e4', '--sort', 'deadline', '--deadline-after', '2026-01-01'], undefined);
    expect(page.body).toContain(`<strong>${count.stdout.trim()} tenders</strong>`);
    expect(page.body).toContain('id="f-buyerCountries" name="buyerCountries" aria-describedby="f-buyerCountries-hint" value="deu,fra"');
    expect(page.body).toMatch(/<option selected>deadline<\/option>/);
  });

  it('/: Next walks the whole selection by cursor, each tender once, in order; Previous goes back page by page', async () => {
    const selection: LocalSelection = { sortBy: 'estimatedValue' };
    const expected = await allIds(client.store, selection);
    const seen: string[] = [];
    const pages: string[] = [];
    let target: string | undefined = '/?sortBy=estimatedValue&limit=40';
    while (target !== undefined) {
      pages.push(target);
      const page: { body: string } = (await client.get(target))!;
      seen.push(...resultIds(page.body));
      target = relLink(page.body, 'next');
    }
    expect(expected.length).toBeGreaterThan(200);
    expect(seen).toEqual(expected);
    expect(pages.length).toBe(Math.ceil(expected.length / 40));
    // From the last page back to the first, by Previous alone.
    let back: string | undefined = pages.at(-1);
    const backwards: string[][] = [];
    while (back !== undefined) {
      const page: { body: string } = (await client.get(back))!;
      backwards.unshift(resultIds(page.body));
      back = relLink(page.body, 'prev');
    }
    expect(backwards.flat()).toEqual(expected);
    expect(relLink((await client.get(pages[1]!))!.body, 'prev')).toBe('/?sortBy=estimatedValue&limit=40');
  });

  it('/: a refused value is a 400 naming the field as the URL does; a full-text syntax error too', async () => {
    const date = (await client.get('/?publishedFrom=yesterday'))!;
    expect(date.status).toBe(400);
    expect(date.body).toMatch(/<p class="error" role="alert"><strong>Cannot search:<\/strong> publishedFrom takes a date/);
    const range = (await client.get('/?minValueEur=5&maxValueEur=1'))!;
    expect(range.body).toContain('minValueEur (5) is after maxValueEur (1)');
    const fts = (await client.get('/?q=%22unclosed'))!;
    expect(fts.status).toBe(400);
    const cursor = (await client.get('/?cursor=L1.bogus'))!;
    expect(cursor.status).toBe(400);
    expect(cursor.body).toContain('cursor: not a cursor tenders gave');
  });

  it('/: with a sync chosen, links its downloads and subscriptions with the selection (the feed: the sync\'s changes); without, says to choose one', async () => {
    const page = (await client.get('/?sync=planted&q=roads'))!;
    expect(resultIds(page.body)).toEqual(['P-1']);
    expect(page.body).toContain('<a href="/syncs/planted/tenders.csv?q=roads" download>CSV</a>');
    expect(page.body).toContain('<a href="webcal://127.0.0.1:8787/syncs/planted/deadlines.ics?q=roads">');
    expect(page.body).toContain('<link rel="alternate" type="application/atom+xml" title="Changes of planted" href="/syncs/planted/changes.atom">');
    expect((await client.get('/'))!.body).toContain('Choose a sync to download this selection or subscribe to it.');
  });

  it('/tenders/{id}: the document, its history (the deadline that moved), the calendar file; a gone tender; 404 for none', async () => {
    const id = String(docs[0]!.id);
    const page = (await client.get(`/tenders/${id}`))!;
    expect(page.status).toBe(200);
    expect(page.body).toContain(`<code>${id}</code>`);
    expect(page.body).toMatch(/<span class="kind kind-changed">changed<\/span> <code><bdi>deadline<\/bdi><\/code>: <code><bdi>&quot;[^&]+&quot;<\/bdi><\/code> → <code><bdi>&quot;2027-04-15T12:00:00Z&quot;<\/bdi><\/code> <span class="sync">\(sync <bdi>all<\/bdi>\)<\/span>/);
    const ics = (await client.get(`/tenders/${id}.ics`))!;
    expect(ics.headers['Content-Type']).toBe('text/calendar; charset=utf-8');
    expect(ics.body).toMatch(/^BEGIN:VCALENDAR\r\n[\s\S]*BEGIN:VEVENT\r\n[\s\S]*DTSTART:20270415T120000Z\r\n[\s\S]*END:VCALENDAR\r\n$/);
    const gone = (await client.get(`/tenders/${String(docs.at(-1)!.id)}`))!;
    expect(gone.status).toBe(200);
    expect(gone.body).toContain('The copy no longer holds this tender');
    expect((await client.get('/tenders/NOPE'))!.status).toBe(404);
    expect((await client.get('/tenders/%E0%A4%A'))!.status).toBe(404);
  });

  it('/changes: the second run\'s changes grouped by day, per sync, with the sync\'s Atom link; a bad date is a 400', async () => {
    const page = (await client.get('/changes?since=30d&sync=all'))!;
    expect(page.status).toBe(200);
    expect(page.body).toContain('2 changes.');
    expect(page.body).toMatch(/<section class="day" aria-labelledby="day-\d{4}-\d{2}-\d{2}">/);
    expect(page.body).toContain('<span class="kind kind-gone">gone</span>');
    expect(page.body).toContain('<a href="/syncs/all/changes.atom">Atom feed of the changes of all</a>');
    expect((await client.get('/changes?since=soon'))!.status).toBe(400);
    expect((await client.get('/changes?sync=nope'))!.status).toBe(400);
  });

  it('/changes: pages a long view by cursor, newest first, each change once and none left out, saying how many there are in all; a bad cursor is a 400', async () => {
    // A third run renames 450 tenders: with the second run's, more changes than two pages hold.
    const renamed = docs.slice(0, 450).map((doc, i) => ({ ...doc, title: `Renamed ${i}` }));
    await syncInto(db, 'all', renamed);
    const expected = (await client.store.searchChanges({ syncs: ['all'] })).changes.map((c) => `${c.at} ${c.id} ${c.kind} ${c.field}`);
    expect(expected.length).toBeGreaterThan(2 * CHANGES_PER_PAGE);
    const seen: string[] = [];
    let target: string | undefined = '/changes?since=30d&sync=all';
    const pages: string[] = [];
    while (target !== undefined) {
      const page: Page = (await client.get(target))!;
      expect(page.status, target).toBe(200);
      pages.push(page.body);
      const entries = [...page.body.matchAll(/<li><time datetime="([^"]+)">[^<]*<\/time> <a href="\/tenders\/([^"]+)"><bdi>[^<]*<\/bdi><\/a> <span class="kind kind-(\w+)">\w+<\/span>(?: <code><bdi>([^<]*)<\/bdi><\/code>)?/g)];
      expect(entries.length).toBeLessThanOrEqual(CHANGES_PER_PAGE);
      seen.push(...entries.map((m) => `${m[1]} ${decodeURIComponent(m[2]!)} ${m[3]} ${m[4] ?? null}`));
      target = relLink(page.body, 'next');
      if (target !== undefined) expect(new URL(target, 'http://x').searchParams.get('sync')).toBe('all');
    }
    expect(seen).toEqual(expected);
    expect(pages.length).toBe(Math.ceil(expected.length / CHANGES_PER_PAGE));
    const total = expected.length.toLocaleString('en-US');
    expect(pages[0]).toContain(`<p role="status">${total} changes in all, newest first: ${CHANGES_PER_PAGE} here, back to <time datetime=`);
    expect(pages[0]).not.toContain('← Newest');
    expect(pages.at(-1)).toContain(`<p role="status">${total} changes in all, newest first: ${expected.length % CHANGES_PER_PAGE || CHANGES_PER_PAGE} here`);
    expect(pages.at(-1)).toContain('<li><a href="/changes?since=30d&amp;sync=all">← Newest</a></li>');
    const bad = (await client.get('/changes?cursor=C1.bogus'))!;
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('cursor: not a cursor of this page');
  });

  it('/syncs: each sync with its query, last run, tenders and the command that refreshes it', async () => {
    const page = (await client.get('/syncs'))!;
    expect(page.status).toBe(200);
    expect(page.body).toContain('<th scope="row"><a href="/?sync=all">all</a></th>');
    expect(page.body).toContain(`<td class="num">${(docs.length - 1).toLocaleString('en-US')}</td>`);
    expect(page.body).toContain('<td><code>tenders sync planted</code></td>');
  });

  it('/static/: the stylesheet and script, together under 30 KB, cacheable by ETag', async () => {
    const css = (await client.get('/static/page.css'))!;
    const js = (await client.get('/static/page.js'))!;
    expect(css.headers['Content-Type']).toBe('text/css; charset=utf-8');
    expect(js.headers['Content-Type']).toBe('text/javascript; charset=utf-8');
    expect(css.headers.ETag).toMatch(/^"[\w-]{16}"$/);
    expect(Buffer.byteLength(css.body) + Buffer.byteLength(js.body)).toBeLessThan(30 * 1024);
  });
});
