import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CPV_LINE_BYTES_MAX, cpvNameFile, cpvVocabulary } from '../../src/files/cpv-file.js';
import { CPV_DIVISIONS, normalizeCpvCode } from '../../src/model/cpv.js';
import { CpvVocabulary } from '../../src/model/cpv-vocabulary.js';
import { CPV, CPV_RELATED } from '../../src/sandbox/catalogue.js';
import { TenderGenerator } from '../../src/sandbox/data.js';

/** The CPV 2008 vocabulary shipped in data/cpv-2008.tsv (docs/local-filters.md says where it came from). */
describe('the CPV 2008 vocabulary', () => {
  it('holds the 9 454 codes of Regulation (EC) No 213/2008, each once, eight digits, in code order, with known names', async () => {
    const vocabulary = cpvVocabulary();
    const codes = vocabulary.entries.map((entry) => entry.code);
    expect(codes).toHaveLength(9454);
    expect(new Set(codes).size).toBe(9454);
    expect(codes.every((code) => normalizeCpvCode(code) === code)).toBe(true);
    expect(codes).toEqual([...codes].sort());
    expect(vocabulary.entries.every((entry) => entry.name !== '' && entry.name.trim() === entry.name && !/[\t\n]/.test(entry.name))).toBe(true);
    expect(vocabulary.name('45233140')).toBe('Roadworks');
    expect(vocabulary.name('03000000')).toBe('Agricultural, farming, fishing, forestry and related products');
    expect(vocabulary.name('45000000')).toBe('Construction work');
    expect(vocabulary.name('90910000')).toBe('Cleaning services');
    expect(vocabulary.name('99999999')).toBeUndefined();
    expect(vocabulary.label('45233140')).toBe('45233140 Roadworks');
    expect(vocabulary.label('99999999')).toBe('99999999');
    // The divisions completion offers after --cpv are the vocabulary's.
    expect([...new Set(codes.map((code) => code.slice(0, 2)))]).toEqual([...CPV_DIVISIONS]);
  });

  it('names every code as its line does, found in the text without the list, and no code it lacks', async () => {
    const vocabulary = cpvVocabulary();
    const text = readFileSync(new URL('../../data/cpv-2008.tsv', import.meta.url), 'utf8');
    const lines = text.split('\n').filter((line) => line !== '');
    const fresh = new CpvVocabulary(text);
    for (const line of lines) expect(fresh.name(line.slice(0, 8)), line).toBe(line.slice(9));
    const codes = new Set(lines.map((line) => line.slice(0, 8)));
    // Before the first, after the last, between neighbours, and what is no code.
    for (const code of ['00000000', '02999999', '03000001', '45233143', '98999999', '99999999', '4523314', '45233140-2', '', 'abcdefgh']) {
      expect(codes.has(code), code).toBe(false);
      expect(fresh.name(code), code).toBeUndefined();
    }
    // A text with no newline at its end, of one line and of two.
    expect(new CpvVocabulary('45000000\tConstruction work').name('45000000')).toBe('Construction work');
    expect(new CpvVocabulary('03000000\tA\n45000000\tB').name('45000000')).toBe('B');
    expect(new CpvVocabulary('03000000\tA\n45000000\tB').name('03000000')).toBe('A');
    expect(new CpvVocabulary('').name('03000000')).toBeUndefined();
    expect(vocabulary.entries).toHaveLength(lines.length);
  });

  it('names every code from its file as from its text (show\'s few codes, without reading the file whole), and no code it lacks', () => {
    const text = readFileSync(new URL('../../data/cpv-2008.tsv', import.meta.url), 'utf8');
    const lines = text.split('\n').filter((line) => line !== '');
    const names = cpvNameFile();
    try {
      // The first, the last and every line between: names with a character of two bytes (Pâté) and the longest.
      for (const line of lines) expect(names.name(line.slice(0, 8)), line).toBe(line.slice(9));
      for (const code of ['00000000', '02999999', '03000001', '45233143', '98999999', '99999999', '4523314', '45233140-2', '', 'abcdefgh']) {
        expect(names.name(code), code).toBeUndefined();
      }
    } finally {
      names.close();
    }
  });

  it('is the file as committed, read once', async () => {
    const text = readFileSync(new URL('../../data/cpv-2008.tsv', import.meta.url), 'utf8');
    expect(text.endsWith('\n') && text.split('\n').length - 1).toBe(9454);
    // cpvNameFile finds a line within this many bytes of any offset in it.
    expect(Math.max(...text.split('\n').map((line) => Buffer.byteLength(line)))).toBeLessThan(CPV_LINE_BYTES_MAX);
    expect(cpvVocabulary()).toBe(cpvVocabulary());
  });

  it('finds entries whose names hold every word in any case, and a code with the codes below it', async () => {
    const vocabulary = cpvVocabulary();
    const road = vocabulary.find(['ROAD']);
    expect(road).toContainEqual({ code: '45233140', name: 'Roadworks' });
    expect(road.every((entry) => entry.name.toLowerCase().includes('road'))).toBe(true);
    // A word that begins so comes before one that holds it inside (Broad beans).
    const inside = road.findIndex((entry) => !/(^|[^\p{L}\p{N}])road/iu.test(entry.name));
    expect(inside).toBeGreaterThan(0);
    expect(road.slice(inside).every((entry) => !/(^|[^\p{L}\p{N}])road/iu.test(entry.name))).toBe(true);
    expect(road.findIndex((entry) => entry.code === '45233140')).toBeLessThan(inside);
    const branch = vocabulary.find(['4523']);
    expect(branch[0]).toEqual({ code: '45230000', name: expect.stringContaining('highways, roads') });
    expect(branch.every((entry) => entry.code.startsWith('4523'))).toBe(true);
    expect(vocabulary.find(['45233140-2']).map((entry) => entry.code)).toEqual(['45233140', '45233141', '45233142', '45233144']);
    const both = vocabulary.find(['clean', 'services', '909']);
    expect(both.length).toBeGreaterThan(3);
    expect(both.every((entry) => entry.code.startsWith('909') && /clean/i.test(entry.name) && /services/i.test(entry.name))).toBe(true);
    expect(vocabulary.find(['xyzzy'])).toEqual([]);
    // A table's cell of a CPV field: the codes as written, with their names.
    expect(vocabulary.cell('45233140-2')).toBe('45233140-2 Roadworks');
    expect(vocabulary.cell(['45233140', '77777777', '90910000'])).toBe('45233140 Roadworks; 77777777; 90910000 Cleaning services');
    expect(vocabulary.cell(['77777777'])).toBeUndefined();
    expect(vocabulary.cell(42)).toBeUndefined();
    expect(vocabulary.find([])).toHaveLength(9454);
  });

  it("gives the sandbox real codes: every code of its catalogue, several per tender, the same for a seed", async () => {
    const vocabulary = cpvVocabulary();
    for (const code of [...CPV, ...Object.values(CPV_RELATED).flat()]) expect(vocabulary.name(code), code).toBeDefined();
    const tenders = new TenderGenerator(5).initial(300);
    expect(tenders.every((t) => t.cpvCodes[0] === t.cpv && t.cpvCodes.length >= 2 && new Set(t.cpvCodes).size === t.cpvCodes.length)).toBe(true);
    expect(new TenderGenerator(5).initial(300)).toEqual(tenders);
    expect(new TenderGenerator(6).initial(300).map((t) => t.cpvCodes)).not.toEqual(tenders.map((t) => t.cpvCodes));
  });
});
