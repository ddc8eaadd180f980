import { describe, expect, it } from 'vitest';
import { diffLines } from '../../../src/output/terminal/table-diff.js';

const both = { old: true, new: true };

describe('the lines under a change on a terminal', () => {
  it('marks what was added, removed or replaced, with the shared words once, as git diff --word-diff', () => {
    expect(diffLines('Lieferung von Streusalz', 'Lieferung von Streusalz (amended 1)', both, 80, false)).toEqual(['  Lieferung von Streusalz {+(amended 1)+}']);
    expect(diffLines('Waste collection and recycling', 'Waste collection and glass recycling', both, 80, false)).toEqual(['  Waste collection and {+glass+} recycling']);
    expect(diffLines('Cleaning of hospital wards', 'Cleaning of wards', both, 80, false)).toEqual(['  Cleaning of [-hospital-] wards']);
    expect(diffLines('Supply of road salt', 'Supply of gravel', both, 80, false)).toEqual(['  Supply of [-road salt-]{+gravel+}']);
  });

  it('says old → new where the values share no word, (none) for an absent or null one, numbers grouped', () => {
    expect(diffLines('2026-03-20T12:00:00Z', '2026-03-27T12:00:00Z', both, 80, false)).toEqual(['  2026-03-20T12:00:00Z → 2026-03-27T12:00:00Z']);
    expect(diffLines(15884, 1250000, both, 80, false)).toEqual(['  15,884 → 1,250,000']);
    expect(diffLines(null, { amountEur: 5 }, both, 80, false)).toEqual(['  (none) → {"amountEur":5}']);
    expect(diffLines('a b', undefined, both, 80, false)).toEqual(['  a b → (none)']);
  });

  it('keeps three words of context each side when the whole does not fit, and breaks between words at the width', () => {
    const before = 'one two three four five six seven eight nine ten';
    const after = 'eleven twelve thirteen fourteen fifteen sixteen';
    const lines = diffLines(`${before} old ${after}`, `${before} new ${after}`, both, 40, false);
    expect(lines.map((line) => line.trim()).join(' ')).toBe('… eight nine ten [-old-]{+new+} eleven twelve thirteen …');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40);
    expect(lines.every((line) => line.startsWith('  '))).toBe(true);
  });

  it('colours the removed red and the added green when colour is on, and shows one value when only one is asked for', () => {
    expect(diffLines('a b', 'a c', both, 80, true)).toEqual(['  a \x1b[31m[-b-]\x1b[39m\x1b[32m{+c+}\x1b[39m']);
    expect(diffLines('a b', 'a c', { old: false, new: true }, 80, false)).toEqual(['  new: a c']);
    expect(diffLines('a b', 'a c', { old: true, new: false }, 80, false)).toEqual(['  old: a b']);
  });
});
