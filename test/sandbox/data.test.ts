import { describe, expect, it } from 'vitest';
import { EUR_RATES, HOSTILE_TITLES } from '../../src/sandbox/catalogue.js';
import { TenderGenerator } from '../../src/sandbox/data.js';

describe('generated data', () => {
  const tenders = new TenderGenerator(1).initial(3000);

  it('is the same for the same seed and different for another', () => {
    expect(new TenderGenerator(1).initial(50)).toEqual(new TenderGenerator(1).initial(50));
    expect(new TenderGenerator(2).initial(50)).not.toEqual(new TenderGenerator(1).initial(50));
  });

  it('has unique ids, many countries, every status, and tenders without deadline or value', () => {
    expect(new Set(tenders.map((t) => t.id)).size).toBe(3000);
    expect(new Set(tenders.map((t) => t.buyer.country)).size).toBeGreaterThanOrEqual(25);
    expect(new Set(tenders.map((t) => t.status))).toEqual(new Set(['open', 'closed', 'awarded', 'cancelled']));
    expect(tenders.some((t) => t.deadline === null)).toBe(true);
    expect(tenders.some((t) => t.estimatedValue === null)).toBe(true);
    for (const t of tenders) expect(t.buyer.country).toMatch(/^[A-Z]{3}$/);
  });

  it('converts every value to EUR at the fixed rate', () => {
    const currencies = new Set<string>();
    for (const t of tenders) {
      if (!t.estimatedValue) continue;
      const { amount, currency, amountEur } = t.estimatedValue;
      currencies.add(currency);
      expect(Math.abs(amountEur - amount * EUR_RATES[currency]!)).toBeLessThanOrEqual(0.006);
    }
    expect(currencies.size).toBeGreaterThan(5);
  });

  it('gives the newest tenders the hostile titles', () => {
    const newest = [...tenders].sort((a, b) => (a.publicationDate === b.publicationDate ? (a.id < b.id ? 1 : -1) : a.publicationDate < b.publicationDate ? 1 : -1));
    expect(newest.slice(0, HOSTILE_TITLES.length).map((t) => t.title)).toEqual(HOSTILE_TITLES);
    expect(HOSTILE_TITLES.some((t) => /\u001b\[/.test(t))).toBe(true);
    expect(HOSTILE_TITLES.some((t) => /[\r\n]/.test(t))).toBe(true);
    expect(HOSTILE_TITLES.some((t) => /^=/.test(t))).toBe(true);
  });
});
