import { describe, expect, it } from 'vitest';
import { EUR_RATES, HOSTILE_TITLES } from '../../src/sandbox/catalogue.js';
import { TenderGenerator, type Tender } from '../../src/sandbox/data.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { ORGS, TENDERS } from './http.js';

describe('generated data', () => {
  const tenders = new TenderGenerator(1).initial(3000);

  it('is the same for the same seed and different for another', () => {
    expect(new TenderGenerator(1).initial(50)).toEqual(new TenderGenerator(1).initial(50));
    expect(new TenderGenerator(2).initial(50)).not.toEqual(new TenderGenerator(1).initial(50));
  });

  it('has unique ids, many countries and buyers, every status, and tenders without deadline or value', () => {
    expect(new Set(tenders.map((t) => t.id)).size).toBe(3000);
    expect(new Set(tenders.map((t) => t.buyer.country)).size).toBeGreaterThanOrEqual(25);
    expect(new Set(tenders.map((t) => t.buyer.id)).size).toBeGreaterThan(150);
    expect(new Set(tenders.map((t) => t.status))).toEqual(new Set(['open', 'closed', 'awarded', 'cancelled']));
    const share = (p: (t: Tender) => boolean) => tenders.filter(p).length / tenders.length;
    expect(share((t) => t.deadline === null)).toBeCloseTo(0.15, 1);
    expect(share((t) => t.estimatedValue === null)).toBeCloseTo(0.2, 1);
    for (const t of tenders) {
      expect(t.buyer.country).toMatch(/^[A-Z]{3}$/);
      expect(t.publicationDate).toMatch(/^\d{4}-\d\d-\d\d$/);
      if (t.deadline !== null) expect(t.deadline > t.publicationDate).toBe(true);
    }
  });

  it('converts every value to EUR at the fixed rate, rounded to cents', () => {
    const currencies = new Set<string>();
    for (const t of tenders) {
      if (!t.estimatedValue) continue;
      const { amount, currency, amountEur } = t.estimatedValue;
      currencies.add(currency);
      expect(amountEur).toBe(Math.round(amount * EUR_RATES[currency]! * 100) / 100);
    }
    expect(currencies).toEqual(new Set(Object.keys(EUR_RATES)));
  });

  it('has hostile titles among the others, and on the newest tenders', () => {
    const share = tenders.filter((t) => HOSTILE_TITLES.includes(t.title)).length / tenders.length;
    expect(share).toBeGreaterThan(0.04);
    expect(share).toBeLessThan(0.09);
    expect(HOSTILE_TITLES.some((t) => t.length > 300)).toBe(true);
  });

  it('puts every kind of hostile title on the first page of a default search', async () => {
    const sb = await startSandbox();
    try {
      const titles = sb.truth(TENDERS, {}).slice(0, 25).map((t) => (t as Tender).title);
      for (const kind of [/,.*"|",/, /\n/, /\r\n/, /\u001b\[/, /\u0007/, /\u009b/, /\t/, /[\u0370-\u03ff]/, /[\u0400-\u04ff]/, /[\u3040-\u30ff]/, /[\u0600-\u06ff]/, /\p{Extended_Pictographic}/u, /^=/, /^\+/, /^-/, /^@/]) {
        expect(titles.some((t) => kind.test(t)), String(kind)).toBe(true);
      }
    } finally {
      await sb.close();
    }
  });

  it('has something for the README examples at the default size and seed: hospitals', async () => {
    const sb = await startSandbox();
    try {
      // tenders search --filter query=hospital
      const hospitals = sb.truth(TENDERS, { query: 'hospital' }) as Tender[];
      expect(hospitals.length).toBeGreaterThan(100);
      expect(hospitals.length).toBeLessThan(500);
      expect(new Set(hospitals.map((t) => t.buyer.country)).size).toBeGreaterThanOrEqual(5);
      expect(sb.truth(TENDERS, { query: 'Krankenhaus' }).length).toBeGreaterThan(10);
      // tenders orgs search --query hospital --country DEU,AUT
      const orgs = sb.truth(ORGS, { query: 'hospital', countries: ['DEU', 'AUT'] }) as { country: string }[];
      expect(orgs.length).toBeGreaterThanOrEqual(3);
      expect(orgs.length).toBeLessThanOrEqual(25);
      expect(new Set(orgs.map((o) => o.country))).toEqual(new Set(['DEU', 'AUT']));
    } finally {
      await sb.close();
    }
  });

  it('is as of its day: published up to it, and open tenders\' deadlines after it while the others follow publication', () => {
    const today = Date.UTC(2030, 0, 10);
    const tenders = new TenderGenerator(4, today).initial(3000);
    expect(tenders.every((t) => t.publicationDate <= '2030-01-10')).toBe(true);
    const open = tenders.filter((t) => t.status === 'open' && t.deadline !== null);
    expect(open.length).toBeGreaterThan(500);
    expect(open.every((t) => t.deadline! > '2030-01-16')).toBe(true);
    const past = tenders.filter((t) => t.status !== 'open' && t.deadline !== null && t.deadline < '2030-01-10');
    expect(past.length).toBeGreaterThan(tenders.length / 3);
  });

  it('keeps going past the initial set with new ids, published no earlier than any', () => {
    const generator = new TenderGenerator(1);
    const initial = generator.initial(100);
    const newestDay = initial.map((t) => t.publicationDate).sort().at(-1)!;
    const more = [generator.next(), generator.next()];
    expect(more.every((t) => t.publicationDate >= newestDay)).toBe(true);
    expect(more.every((t) => t.id > initial.at(-1)!.id)).toBe(true);
  });

  it('generates 200 000 tenders with unique ids', () => {
    const big = new TenderGenerator(7).initial(200_000);
    expect(new Set(big.map((t) => t.id)).size).toBe(200_000);
  });
});
