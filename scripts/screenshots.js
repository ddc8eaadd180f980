#!/usr/bin/env node
// npm run screenshots: the pictures of the page in docs/images/, made as `npm run demo` serves
// it: the bundled sandbox, a copy synced from it twice (the sandbox's data changing in between,
// so tenders have a history), `tenders serve` over the copy, and Debian's chromium driven by
// playwright-core at a phone's 375 px and a desktop's 1280 px. Run after a build, on a machine
// with `apt-get install -y chromium fonts-noto-color-emoji fonts-noto-cjk` (without the fonts,
// emoji and the Japanese and Chinese titles show as boxes). CHROMIUM=PATH names another browser.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { mutate, startSandbox, startServe, tenders } from './sandbox-copy.js';

const images = fileURLToPath(new URL('../docs/images/', import.meta.url));
const executablePath = process.env.CHROMIUM ?? spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).stdout.trim();
if (executablePath === '') throw new Error('screenshots: no chromium on PATH (apt-get install -y chromium fonts-noto-color-emoji fonts-noto-cjk)');

/** A viewport's height per width: a phone's screen and a laptop's, not the whole page (small files). */
const VIEWPORTS = [
  { width: 375, height: 812 },
  { width: 1280, height: 800 },
];

const sandbox = await startSandbox();
const dir = mkdtempSync(join(tmpdir(), 'tenders-screenshots-'));
let server;
let browser;
try {
  const db = join(dir, 'tenders.db');
  tenders(sandbox.url, ['sync', 'demo', '--db', db]);
  const changed = await mutate(sandbox.url, { insert: 5, update: 8, close: 3, remove: 2, seed: 7 });
  tenders(sandbox.url, ['sync', 'demo', '--db', db]);
  server = await startServe(db);

  // Each page from its top, or scrolled to what it is shown for where the form or the summary would fill the picture.
  const PAGES = [
    { name: 'search', path: '/' },
    { name: 'search-results', path: '/?q=hospital&statuses=open&sortBy=deadline&sortOrder=asc&sync=demo', scrollTo: () => '#results-title' },
    { name: 'tender', path: `/tenders/${changed.updated[0]}`, scrollTo: (width) => (width < 600 ? '#history-title' : undefined) },
    { name: 'changes', path: '/changes' },
    { name: 'syncs', path: '/syncs' },
  ];
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  for (const viewport of VIEWPORTS) {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
    const page = await context.newPage();
    for (const { name, path, scrollTo } of PAGES) {
      await page.goto(`${server.url}${path}`, { waitUntil: 'load' });
      const target = scrollTo?.(viewport.width);
      if (target !== undefined) await page.locator(target).evaluate((element) => element.scrollIntoView());
      const file = join(images, `web-${name}-${viewport.width}.png`);
      await page.screenshot({ path: file });
      console.log(`${file}: ${path} at ${viewport.width} px, ${(statSync(file).size / 1024).toFixed(0)} KB`);
    }
    await context.close();
  }
} finally {
  await browser?.close();
  await server?.stop();
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
}
