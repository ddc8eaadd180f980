import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { axeFindings, hasChromium, launchChromium } from '../support/chromium.js';
import { runCli } from '../support/cli.js';
import { readAtomWithPython, readIcsWithPython } from '../support/readers.js';
import { useSandbox } from '../support/sandbox.js';
import { withReplica } from '../support/serve.js';
import { testDir } from '../support/test-context.js';

/**
 * The page served by `tenders serve --token-file`: a browser signs in once
 * (the token typed, a cookie kept), and the page's links to a sync's files
 * carry their keys, so a calendar or feed reader given them reads them with
 * no token at all. Real HTTP against a spawned server over a synced copy.
 */
const sb = useSandbox({ size: 600, seed: 41 });
let db: string;

beforeAll(async () => {
  db = join(testDir(), 'copy.db');
  // Twice, the service changed between: the sync's feed has entries.
  for (const seed of [1, 2]) {
    const r = await runCli(['sync', 'deu', '-c', 'DEU', '--db', db], sb.url);
    expect(r.code, r.stderr).toBe(0);
    sb.mutate({ insert: 20, update: 60, seed });
  }
});

function tokenArgs(token = 'team-token'): string[] {
  const file = join(testDir(), `token-${token}`);
  writeFileSync(file, `${token}\n`);
  return ['--db', db, '--token-file', file, '-q'];
}

/** The hrefs of a page's links, entities undone, in order. */
function hrefs(body: string): string[] {
  return [...body.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
}

const signInForm = (token: string, next: string) => new URLSearchParams({ next, token }).toString();

async function signIn(url: string, token: string, next = '/', headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/sign-in`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: signInForm(token, next) });
}

describe('the page behind --token-file', () => {
  it('asks a browser without the token to sign in, on the pages only: the API keeps its JSON 401, the stylesheet and script are open', async () => {
    await withReplica(tokenArgs(), async ({ url }) => {
      const page = await fetch(`${url}/changes?since=30d`);
      expect(page.status).toBe(401);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
      const body = await page.text();
      expect(body).toContain('<form method="post" action="/sign-in" class="sign-in" aria-label="Sign in">');
      expect(body).toContain('<input type="hidden" name="next" value="/changes?since=30d">');
      const api = await fetch(`${url}/api/v1/syncs`);
      expect([api.status, await api.text()]).toEqual([401, '{"message":"a bearer token is required"}']);
      expect((await fetch(`${url}/syncs/deu/tenders.csv`)).status).toBe(401);
      expect((await fetch(`${url}/static/page.css`)).status).toBe(200);
      expect((await fetch(`${url}/static/page.js`)).status).toBe(200);
    });
  });

  it('signs a browser in with the token typed once: a cookie that is HttpOnly, SameSite=Strict, Secure behind https, and opens the pages and files but no API', async () => {
    await withReplica(tokenArgs(), async ({ url }) => {
      const wrong = await signIn(url, 'team-tokeN', '/syncs');
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('set-cookie')).toBeNull();
      expect(await wrong.text()).toContain("that is not the server's token");

      const right = await signIn(url, 'team-token', '/?sync=deu&statuses=open');
      expect(right.status).toBe(303);
      expect(right.headers.get('location')).toBe('/?sync=deu&statuses=open');
      const cookie = right.headers.get('set-cookie')!;
      expect(cookie).toMatch(/^tenders_session=[\w-]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Strict$/);
      const secure = await signIn(url, 'team-token', '/', { 'x-forwarded-proto': 'https' });
      expect(secure.headers.get('set-cookie')).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);

      const session = { cookie: cookie.split(';')[0]! };
      const page = await fetch(`${url}/?sync=deu&statuses=open`, { headers: session });
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/<strong>[\d,]+ tenders?<\/strong> match/);
      expect((await fetch(`${url}/syncs/deu/tenders.csv`, { headers: session })).status).toBe(200);
      expect((await fetch(`${url}/api/v1/syncs`, { headers: session })).status).toBe(401);
      const search = await fetch(`${url}/api/v1/tenders/search`, { method: 'POST', headers: { ...session, 'content-type': 'application/json' }, body: '{}' });
      expect(search.status).toBe(401);
      // A changed cookie opens nothing, and neither does this one once the token changes.
      expect((await fetch(`${url}/`, { headers: { cookie: `${session.cookie.slice(0, -2)}xx` } })).status).toBe(401);
      await withReplica(tokenArgs('new-token'), async (rotated) => expect((await fetch(`${rotated.url}/`, { headers: session })).status).toBe(401));
      // The form itself, signed in or not, going on to the page its URL names.
      const again = await fetch(`${url}/sign-in?next=%2Fsyncs`, { headers: session });
      expect(again.status).toBe(200);
      expect(await again.text()).toContain('<input type="hidden" name="next" value="/syncs">');
      // Never sent on to another site: a next that is not a local path goes to the search page.
      for (const next of ['//evil.example/', 'https://evil.example/', '/\\evil.example']) expect((await signIn(url, 'team-token', next)).headers.get('location')).toBe('/');
    });
  });

  it("keys the page's links to a sync's files: a calendar app follows the webcal link, a feed reader the feed, a spreadsheet the CSV, with no token", async () => {
    let webcal = '';
    await withReplica(tokenArgs(), async ({ url }) => {
      const page = await fetch(`${url}/?sync=deu&statuses=open&sortBy=deadline`, { headers: { authorization: 'Bearer team-token' } });
      expect(page.status).toBe(200);
      const links = hrefs(await page.text());
      webcal = links.find((href) => href.startsWith('webcal://'))!;
      expect(webcal).toMatch(new RegExp(`^webcal://${url.slice('http://'.length)}/syncs/deu/deadlines\\.ics\\?statuses=open&sortBy=deadline&key=[\\w-]{43}$`));
      // As a calendar application does: the same address over http(s), no Authorization, no cookie.
      const ics = await fetch(webcal.replace(/^webcal:/, 'http:'));
      expect(ics.status).toBe(200);
      const { events } = readIcsWithPython(await ics.text());
      expect(events.length).toBeGreaterThan(0);
      const feed = links.find((href) => href.startsWith('/syncs/deu/changes.atom'))!;
      const atom = await fetch(url + feed);
      expect(atom.status).toBe(200);
      expect(readAtomWithPython(await atom.text())).toMatchObject({ bozo: false, entries: expect.arrayContaining([expect.objectContaining({ id: expect.any(String) })]) });
      const csv = links.find((href) => href.startsWith('/syncs/deu/tenders.csv?'))!;
      expect((await fetch(url + csv)).status).toBe(200);
      // The syncs page's calendar and feed links too.
      const syncs = hrefs(await (await fetch(`${url}/syncs`, { headers: { authorization: 'Bearer team-token' } })).text());
      for (const href of syncs.filter((h) => h.startsWith('/syncs/'))) expect((await fetch(url + href)).status, href).toBe(200);
    });
    // A new token revokes them: the same link to a server with another token is refused.
    await withReplica(tokenArgs('new-token'), async ({ url }) => {
      const path = new URL(webcal.replace(/^webcal:/, 'http:'));
      expect((await fetch(`${url}${path.pathname}${path.search}`)).status).toBe(401);
    });
  });

  it('without a token, the links carry no key and there is no sign-in', async () => {
    await withReplica(['--db', db, '-q'], async ({ url }) => {
      const links = hrefs(await (await fetch(`${url}/?sync=deu`)).text());
      expect(links.filter((href) => href.includes('/syncs/deu/')).length).toBeGreaterThan(5);
      expect(links.filter((href) => href.includes('key='))).toEqual([]);
      expect((await fetch(`${url}/sign-in`)).status).toBe(404);
    });
  });

  it.skipIf(!hasChromium)('in a browser: the sign-in page (axe finds nothing serious), a wrong token refused, the right one leads on to the page asked for; the cookie is out of scripts\' reach', async () => {
    await withReplica(tokenArgs(), async ({ url }) => {
      const browser = await launchChromium();
      try {
        const page = await (await browser.newContext({ acceptDownloads: true })).newPage();
        await page.goto(`${url}/changes?since=30d&sync=deu`);
        expect(await page.locator('h1').innerText()).toBe('Sign in');
        expect(await axeFindings(page)).toEqual([]);
        await page.getByLabel('Token').fill('guess');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(`${url}/sign-in`);
        expect(await page.getByRole('alert').innerText()).toContain("that is not the server's token");
        await page.getByLabel('Token').fill('team-token');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(`${url}/changes?since=30d&sync=deu`);
        expect(await page.locator('h1').innerText()).toBe('Changes');
        expect(await page.evaluate(() => document.cookie)).toBe('');
        expect(await page.context().cookies()).toEqual([expect.objectContaining({ name: 'tenders_session', httpOnly: true, sameSite: 'Strict', secure: false })]);
        // The nav to another page, and a download from it, with the cookie alone.
        await page.getByRole('link', { name: 'Syncs' }).click();
        await page.waitForURL(`${url}/syncs`);
        const [download] = await Promise.all([page.waitForEvent('download'), page.goto(`${url}/syncs/deu/tenders.csv`).catch(() => undefined)]);
        expect(download.suggestedFilename()).toBe('deu-tenders.csv');
      } finally {
        await browser.close();
      }
    });
  });
});
