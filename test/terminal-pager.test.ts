import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pagerCommand, pagerEnv, spawnPager } from '../src/terminal-pager.js';

describe('choosing the pager', () => {
  it('takes TENDERS_PAGER, then PAGER, then less -FRX; none for cat or nothing', () => {
    expect(pagerCommand({})).toBe('less -FRX');
    expect(pagerCommand({ PAGER: 'more' })).toBe('more');
    expect(pagerCommand({ PAGER: 'more', TENDERS_PAGER: ' most ' })).toBe('most');
    expect(pagerCommand({ PAGER: 'cat' })).toBeUndefined();
    expect(pagerCommand({ PAGER: 'less', TENDERS_PAGER: '' })).toBeUndefined();
  });

  it('gives less FRX and lv -c unless the user set them', () => {
    expect(pagerEnv({ HOME: '/h' })).toEqual({ HOME: '/h', LESS: 'FRX', LV: '-c' });
    expect(pagerEnv({ LESS: 'R', LV: '' })).toEqual({ LESS: 'R', LV: '' });
  });
});

describe('running the pager', () => {
  it('runs a command with shell syntax through sh, passing it our output and the environment', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tenders-pager-')), 'paged');
    const pager = await spawnPager(`cat > "$PAGED_FILE"`, { PATH: process.env.PATH, PAGED_FILE: file });
    pager.input.write('one\n');
    pager.input.end('two\n');
    await pager.exited;
    expect(readFileSync(file, 'utf8')).toBe('one\ntwo\n');
  });

  it('runs a plain command directly, and refuses one that does not exist', async () => {
    const pager = await spawnPager('true --ignored', { PATH: process.env.PATH });
    pager.input.end();
    await pager.exited;
    await expect(spawnPager('no-such-pager-here -R', { PATH: process.env.PATH })).rejects.toThrow(/ENOENT/);
  });
});
