import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { requireTool } from './tools.js';

/**
 * Debian's chromium for the page's browser tests, driven by playwright-core:
 * never a browser that a package downloads. Without it the tests skip, and
 * the run's last line says how to install it.
 */
export const hasChromium = requireTool('chromium', 'apt-get install chromium fonts-noto-color-emoji');

/** Debian's browser, where PATH finds it. */
const CHROMIUM = hasChromium ? spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).stdout.trim() : '';

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical findings on the page (WCAG 2.1 A and AA, best practice), as `rule (nodes)`. */
export async function axeFindings(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const run = (window as unknown as { axe: { run(options: object): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> } }).axe;
    return run.run({ runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] });
  });
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.nodes.length})`);
}
