import { markHolder, RawNumber } from '../../src/model/exact-json.js';

/** A title that breaks naive writers of every format: markup, quotes, line breaks, TEXT separators, controls, emoji. */
export const HOSTILE_TITLE = 'Roads & <b>bridges</b> "north"; \'lot\', 2\\3\r\nline two\ttab \u001b[31mred\u001b[0m nul\u0000 🚧 Δήμος';

const big = new RawNumber('12345678901234567890.5');
const exactValue = { amount: big, currency: 'EUR', amountEur: big };
markHolder(exactValue);

/** Tenders in the service's shape: hostile text, one without deadline or value, one long, one with digits a double cannot hold. */
export function hostileTenders(): Record<string, unknown>[] {
  const long = { id: 'T-3', title: 'Δήμος 東京 🚧 '.repeat(20), status: 'under-review', publicationDate: '2026-11-20', deadline: '2027-02-01T09:30:00+02:00', buyer: { id: 'ORG-3', name: 'Ville, de; Lille', country: 'FRA' }, estimatedValue: exactValue, url: 'https://tenders.example.org/notices/T-3' };
  markHolder(long);
  return [
    { id: 'T-1', title: HOSTILE_TITLE, status: 'open', publicationDate: '2026-11-23', deadline: '2027-01-14T12:00:00Z', buyer: { id: 'ORG-1', name: 'Büro <&> "Ost"', country: 'DEU' }, estimatedValue: { amount: 1000, currency: 'PLN', amountEur: 1234.5 }, url: 'https://tenders.example.org/notices/T-1' },
    { id: 'T-2', title: 'No deadline, no value', status: 'closed', publicationDate: '2026-11-22', deadline: null, buyer: { id: 'ORG-2', name: 'Gmina', country: 'POL' }, estimatedValue: null, url: 'https://tenders.example.org/notices/T-2' },
    long,
  ];
}
