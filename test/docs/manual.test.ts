import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { manualPage } from '../../src/cli.js';
import { crawlHelp } from '../support/help-crawl.js';

// `npm test` builds first (pretest), and the build writes the manual page.
const BUILT = new URL('../../dist/tenders.1', import.meta.url);
const hasGroff = spawnSync('sh', ['-c', 'command -v groff']).status === 0;

describe('the manual page, tenders.1', () => {
  it('is installed with the package and made by the build from the current program', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { man: string[]; files: string[] };
    expect(pkg.man).toEqual(['./dist/tenders.1']);
    expect(pkg.files).toContain('dist');
    expect(readFileSync(BUILT, 'utf8')).toBe(await manualPage());
  });

  it('has the sections of a manual page, every command and every long flag of the help', async () => {
    const page = await manualPage();
    for (const section of ['NAME', 'SYNOPSIS', 'DESCRIPTION', 'COMMANDS', '"GLOBAL OPTIONS"', 'ENVIRONMENT', '"EXIT STATUS"', 'FILES', 'EXAMPLES']) {
      expect(page).toContain(`\n.SH ${section}\n`);
    }
    const { commands, flags } = await crawlHelp();
    expect(commands).toContainEqual(['orgs', 'tenders']);
    for (const command of commands) expect(page, command.join(' ')).toContain(`\n.SS "tenders ${command.join(' ').replace(/-/g, '\\-')}"\n`);
    for (const flag of flags) expect(page, flag).toContain(flag.replace(/-/g, '\\-'));
  });

  it.skipIf(!hasGroff)('renders without a warning (groff -man -ww)', () => {
    const r = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z', BUILT.pathname], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
  });
});
