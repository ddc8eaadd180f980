import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { filledCopy } from '../support/local-copy.js';
import { pagedTenders } from '../support/fake-client.js';
import { runInProcess } from '../support/run.js';

/**
 * count --local --by cpv prints each code's name beside it in a table, and the
 * code alone in the record formats. (Which codes a tender counts under is the
 * store's: test/store and the end-to-end tests.)
 */
describe('count --local --by cpv', () => {
  it('a table names each code; a long name is cut on a terminal to keep the counts in view; CSV keeps the codes', async () => {
    const { db } = await filledCopy(200, 3);
    const run = (args: string[], opts = {}) => runInProcess(['count', '--local', '--db', db, '--by', 'cpv', ...args], pagedTenders(0), opts);

    const text = await run([]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^45233140 Roadworks +\d+$/m);
    expect(text.stdout).toMatch(/^90910000 Cleaning services +\d+$/m);
    expect(text.stdout).toMatch(/^total +\d+$/m);

    const terminal = await run([], { stdoutTTY: true, columns: 50 });
    expect(terminal.stdout).toMatch(/^72000000 IT services: consult… +\d+/m);
    expect(stripVTControlCharacters(terminal.stdout).split('\n').every((line) => line.length <= 50)).toBe(true);

    const csv = await run(['-f', 'csv']);
    expect(csv.stdout.split('\n')[0]).toBe('cpv,count,capped');
    expect(csv.stdout).toMatch(/^45233140,\d+,false$/m);
    expect(csv.stdout).not.toContain('Roadworks');
  });
});
