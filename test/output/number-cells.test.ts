import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { numberText } from '../../src/model/numbers.js';
import { CsvFormatter } from '../../src/output/formats/csv-formatter.js';
import type { FormatOptions } from '../../src/output/formatter.js';
import { cellText } from '../../src/model/paths.js';

const EDGES = [0, -0, 1, -1, 0.1, 0.5, 1 / 3, -2.5e-7, 1e-7, 1e20, 1e21, 123456789012345680000, 2 ** 53, 2 ** 53 + 2, 5e-324, Number.MAX_VALUE, -Number.MAX_VALUE, Number.EPSILON];

describe('numberText: the digits String() writes', () => {
  it('for every finite number, and for the ones JSON has no digits for', () => {
    let seed = 24;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const numbers = [...EDGES, NaN, Infinity, -Infinity];
    for (let i = 0; i < 5000; i++) numbers.push((random() - 0.5) * 10 ** Math.floor(random() * 40 - 10), Math.round(random() * 1e9), Math.round(random() * 1e11) / 100);
    for (const n of numbers) {
      expect(numberText(n)).toBe(String(n));
      expect(cellText(n)).toBe(String(n));
    }
  });
});

/**
 * Peak memory of a long CSV export grew with its length (issue 24): every number
 * cell went through String(), whose number-to-string cache keeps the texts it made
 * reachable from the old generation, so a minor GC kept a page's worth of them
 * at every turn, the young generation grew to its maximum and promoted garbage
 * piled up. What V8's minor GC finds alive after each page, for the CSV formatter
 * and for String() over the same numbers (which shows that the measure sees such
 * texts): the formatter must leave much less than String() does.
 */
describe('a page of CSV leaves nothing alive once written', () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as (options: { type: 'minor' }) => void;
  const WARM = 10;
  const youngBytes = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_used_size;

  /**
   * Bytes a minor GC finds alive in the young generation after a page: the median over the pages, so
   * that a page during which V8 installed freshly optimised code (in the background, when the
   * machine lets it) does not count as the pages' own.
   */
  function survivorsPerPage(pages: readonly Record<string, unknown>[][], write: (page: Record<string, unknown>[]) => void): number {
    // The first pages warm the code up.
    for (const page of pages.slice(0, WARM)) write(page);
    gc({ type: 'minor' });
    gc({ type: 'minor' }); // what lived before is promoted, out of the count
    const alive: number[] = [];
    for (const page of pages.slice(WARM)) {
      write(page);
      gc({ type: 'minor' });
      alive.push(youngBytes());
    }
    return alive.sort((a, b) => a - b)[Math.floor(alive.length / 2)]!;
  }

  it('no number text outlives its page', () => {
    // Pages as the service's: parsed JSON, 100 tenders with 8 distinct amounts each.
    const tender = (p: number, i: number) => ({
      id: `T-${p}-${i}`,
      value: Object.fromEntries(Array.from({ length: 8 }, (_, k) => [`amount${k}`, (p * 100 + i + 0.5) / (k + 7)])),
    });
    const pages = Array.from({ length: 60 }, (_, p) => JSON.parse(JSON.stringify(Array.from({ length: 100 }, (_, i) => tender(p, i)))) as Record<string, unknown>[]);
    const csv = new CsvFormatter({ header: true, headerStyle: 'path', excelSafe: false } as FormatOptions);
    const formatted = survivorsPerPage(pages, (page) => void csv.page(page));
    const remembered = survivorsPerPage(pages, (page) => {
      for (const row of page) for (const n of Object.values(row.value as Record<string, number>)) void String(n);
    });
    expect(formatted, `bytes alive after each page: CSV ${formatted}, String() of its numbers ${remembered}`).toBeLessThan(remembered / 2);
  });
});
