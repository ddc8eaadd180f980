import { describe, expect, it } from 'vitest';
import { fitColumns, type ColumnMeasure } from '../../../src/output/terminal/table-fit.js';

const fixed = (data: number, priority: number, header = 2): ColumnMeasure => ({ header, data, priority });
const text = (data: number, priority: number, cut: number, header = 5): ColumnMeasure => ({ header, data, priority, cut });

describe('fitting columns to a width', () => {
  it('keeps natural widths when they fit, and everything without a width', () => {
    const columns = [fixed(9, 3), text(40, 2, 20), fixed(10, 1)];
    expect(fitColumns(columns, 80)).toEqual({ shown: [0, 1, 2], widths: [9, 40, 10], hidden: [] });
    expect(fitColumns(columns, undefined)).toEqual({ shown: [0, 1, 2], widths: [9, 40, 10], hidden: [] });
  });

  it('cuts text columns first, the one furthest above its narrowest width first, never the others', () => {
    // 9 + 10 + two gaps of 2 = 23 fixed; 37 left for the title (≥ 20) and the buyer (≥ 12).
    const fit = fitColumns([fixed(9, 4), text(60, 3, 20), text(30, 2, 12), fixed(10, 1)], 66);
    expect(fit.hidden).toEqual([]);
    expect(fit.widths[0]).toBe(9);
    expect(fit.widths[3]).toBe(10);
    expect(fit.widths[1]! + fit.widths[2]!).toBe(66 - 9 - 10 - 6);
    expect(fit.widths[1]! - 20).toBeGreaterThanOrEqual(fit.widths[2]! - 12 - 1);
    expect(fit.widths[1]! - 20).toBeLessThanOrEqual(fit.widths[2]! - 12 + 1);
  });

  it('cuts a cutLast column only once the other text columns are squeezed (a watch\'s changed fields before its title)', () => {
    // A watch: change (7), changedFields (40, ≥ 14, cut last), title (60, ≥ 20, squeezed to 10).
    const columns = [fixed(7, 100), { ...text(40, 99, 14), cutLast: true }, text(60, 7, 20)];
    expect(fitColumns(columns, 7 + 40 + 30 + 4).widths).toEqual([7, 40, 30]);
    expect(fitColumns(columns, 7 + 40 + 20 + 4).widths).toEqual([7, 40, 20]);
    expect(fitColumns(columns, 7 + 40 + 12 + 4).widths).toEqual([7, 40, 12]);
    expect(fitColumns(columns, 7 + 30 + 10 + 4).widths).toEqual([7, 30, 10]);
  });

  it('drops the columns ranked below every text column before it cuts a cutLast column; not the title or the buyer', () => {
    const columns = [fixed(7, 100), { ...text(52, 99, 14), cutLast: true }, fixed(9, 8), fixed(10, 4), text(60, 7, 20)];
    expect(fitColumns(columns, 100)).toEqual({ shown: [0, 1, 2, 4], widths: [7, 52, 9, 26], hidden: [3] });
    // Narrower, the title stays (squeezed) and the fields are cut.
    expect(fitColumns(columns, 60)).toEqual({ shown: [0, 1, 2, 4], widths: [7, 28, 9, 10], hidden: [3] });
  });

  it('squeezes the text below its usual floor before dropping a column the query filters or sorts by, and drops the others first', () => {
    // id, published, deadline, buyer (≥ 12), value (kept: filtered by), title (≥ 20), status, country.
    const columns = [fixed(9, 8), fixed(10, 4), fixed(16, 6), text(30, 5, 12), { ...fixed(11, 3), keep: true }, text(60, 7, 20), fixed(6, 2), fixed(3, 1, 7)];
    const fit = fitColumns(columns, 80);
    expect(fit.shown).toEqual([0, 1, 2, 3, 4, 5]);
    expect(fit.hidden).toEqual([6, 7]);
    expect(fit.widths.reduce((a, b) => a + b) + 2 * 5).toBe(80);
    expect(fit.widths[5]).toBeLessThan(20);
    // Without the filter the value goes, and the title keeps its 20.
    const plain = fitColumns(columns.map(({ keep: _, ...c }) => c), 80);
    expect(plain.hidden).toEqual([4, 6, 7]);
    expect(plain.widths.at(-1)).toBeGreaterThanOrEqual(20);
    // A kept column of the lowest priority outlives the columns that are not kept.
    const country = fitColumns([fixed(9, 8), fixed(10, 4), text(60, 7, 20), fixed(6, 2), { ...fixed(3, 1, 7), keep: true }], 9 + 10 + 16 + 7 + 6);
    expect(country.hidden).toEqual([3]);
    expect(country.widths).toEqual([9, 10, 16, 7]);
  });

  it('never drops a column the user named: the text squeezes, and what still does not fit is an overflow', () => {
    const named = [fixed(9, 3), text(60, 2, 20), fixed(20, 1)].map((c) => ({ ...c, required: true }));
    expect(fitColumns(named, 45)).toEqual({ shown: [0, 1, 2], widths: [9, 12, 20], hidden: [] });
    expect(fitColumns(named, 30)).toMatchObject({ shown: [0, 1, 2], widths: [9, 10, 20], overflow: 43 });
  });

  it('drops whole columns, lowest priority first, when even the narrowest widths do not fit', () => {
    const columns = [fixed(9, 8), fixed(10, 4), fixed(20, 6), fixed(6, 2), fixed(3, 1, 7), text(30, 5, 12), fixed(9, 3), text(60, 7, 20)];
    const at80 = fitColumns(columns, 80);
    expect(at80.shown).toEqual([0, 1, 2, 5, 7]);
    expect(at80.hidden).toEqual([6, 3, 4]);
    expect(at80.widths.reduce((a, b) => a + b) + 2 * 4).toBeLessThanOrEqual(80);
    expect(at80.widths.slice(0, 3)).toEqual([9, 10, 20]);
    const at60 = fitColumns(columns, 60);
    expect(at60.shown).toEqual([0, 2, 7]);
    expect(at60.hidden).toEqual([5, 1, 6, 3, 4]);
  });

  it('cuts a header wider than its data (a dot path) before dropping the column', () => {
    const fit = fitColumns([fixed(9, 2, 24), fixed(9, 1, 2)], 20);
    expect(fit).toEqual({ shown: [0, 1], widths: [9, 9], hidden: [] });
  });

  it('cuts the last column left on a terminal narrower than it', () => {
    expect(fitColumns([fixed(20, 2), fixed(9, 1)], 12)).toEqual({ shown: [0], widths: [12], hidden: [1] });
  });
});
