import { COUNTRIES, CPV, CPV_RELATED, EUR_RATES, HOSTILE_TITLES, PROCEDURES, STATUSES, SUBJECTS, type CountryInfo } from './catalogue.js';
import { Random } from './random.js';

export interface Buyer {
  id: string;
  name: string;
  country: string;
}

export interface Tender {
  id: string;
  title: string;
  status: string;
  publicationDate: string;
  deadline: string | null;
  buyer: Buyer;
  estimatedValue: { amount: number; currency: string; amountEur: number } | null;
  procedure: string;
  cpv: string;
  /** The CPV codes of the tender: `cpv` first, then one to three related codes. */
  cpvCodes: string[];
  url: string;
}

const DAY = 86_400_000;
/**
 * The day the data is as of when none is given (--today): publication dates
 * span the two years up to it, and open tenders' deadlines lie after it. The
 * tests and benchmarks use it; tenders-sandbox itself takes the real today.
 */
export const NEWEST = Date.UTC(2026, 10, 23);
const SPAN_DAYS = 730;
/** The newest tenders get these titles, so the first page of a default search shows them. */
const HOSTILE_FIRST = HOSTILE_TITLES.length;

const STATUS_WEIGHTS = [...STATUSES, 'open', 'open'];
const CURRENCIES = Object.keys(EUR_RATES);
/** Formatting a Date is most of the generator's cost; there are only a few hundred distinct days. */
const isoDates = new Map<number, string>();

function isoDate(ms: number): string {
  let date = isoDates.get(ms);
  if (date === undefined) isoDates.set(ms, (date = new Date(ms).toISOString().slice(0, 10)));
  return date;
}

/** Default search order: publicationDate desc, then id desc. */
function newer(a: Tender, b: Tender): boolean {
  return a.publicationDate === b.publicationDate ? a.id > b.id : a.publicationDate > b.publicationDate;
}

/** The k newest tenders, newest first, without sorting them all. */
function newest(tenders: Tender[], k: number): Tender[] {
  const top: Tender[] = [];
  for (const t of tenders) {
    if (top.length === k) {
      if (!newer(t, top[k - 1]!)) continue;
      top.pop();
    }
    let i = top.length;
    while (i > 0 && newer(t, top[i - 1]!)) i--;
    top.splice(i, 0, t);
  }
  return top;
}

function makeBuyers(random: Random): Buyer[] {
  const buyers: Buyer[] = [];
  for (const country of COUNTRIES) {
    let n = 0;
    for (const pattern of country.buyers) {
      for (const place of country.places) {
        if (random.chance(0.25)) continue;
        n++;
        buyers.push({ id: `ORG-${country.code}-${String(n).padStart(4, '0')}`, name: pattern.replace('{p}', place), country: country.code });
      }
    }
  }
  return buyers;
}

/**
 * Generates tenders deterministically from a seed. `next()` keeps going, for
 * tenders inserted while a client pages (they are the newest published).
 */
export class TenderGenerator {
  readonly buyers: Buyer[];
  readonly #random: Random;
  readonly #seed: number;
  readonly #countries = new Map<string, CountryInfo>(COUNTRIES.map((c) => [c.code, c]));
  #count = 0;

  /** `today`: UTC midnight (ms) of the day the data is as of. */
  constructor(
    seed: number,
    readonly today = NEWEST,
  ) {
    this.#random = new Random(seed);
    this.#seed = seed;
    this.buyers = makeBuyers(this.#random);
  }

  /** How many tenders were generated: the number in the newest id. */
  get count(): number {
    return this.#count;
  }

  /** The initial data set: the newest tenders carry the hostile titles. */
  initial(size: number): Tender[] {
    const tenders: Tender[] = [];
    for (let i = 0; i < size; i++) tenders.push(this.next(this.today - this.#random.int(0, SPAN_DAYS) * DAY));
    newest(tenders, HOSTILE_FIRST).forEach((t, i) => (t.title = HOSTILE_TITLES[i]!));
    return tenders;
  }

  /** One more tender, published at `published` (default: the newest day), drawn from `r` (default: the seed's own sequence). */
  next(published = this.today, r: Random = this.#random): Tender {
    const id = `T-${String(++this.#count).padStart(7, '0')}`;
    const buyer = r.pick(this.buyers);
    const country = this.#countries.get(buyer.country)!;
    const place = r.pick(country.places);
    const title = r.chance(0.05) ? r.pick(HOSTILE_TITLES) : r.pick(SUBJECTS[country.lang]!).replace('{p}', place);
    const currency = r.chance(0.8) ? country.currency : r.pick(CURRENCIES);
    const amount = Math.round(10 ** (3.7 + r.next() * 3.8));
    const status = r.pick(STATUS_WEIGHTS);
    // An open tender's deadline is still ahead (a calendar of open tenders shows what is coming); the others' follow their publication.
    const deadline = r.chance(0.15) ? null : (status === 'open' ? Math.max(published, this.today) : published) + r.int(7, 90) * DAY;
    return {
      id,
      title,
      status,
      publicationDate: isoDate(published),
      deadline: deadline === null ? null : `${isoDate(deadline)}T12:00:00Z`,
      buyer: { ...buyer },
      estimatedValue: r.chance(0.2) ? null : { amount, currency, amountEur: Math.round(amount * EUR_RATES[currency]! * 100) / 100 },
      procedure: r.pick(PROCEDURES),
      ...this.#cpv(r.pick(CPV)),
      url: `https://tenders.example.org/notices/${id}`,
    };
  }

  /**
   * The tender's `cpv` and its `cpvCodes`: `cpv` and one to three of its
   * related codes, drawn from a sequence of the seed and the tender's number,
   * so the other fields' draws stay as they were.
   */
  #cpv(cpv: string): Pick<Tender, 'cpv' | 'cpvCodes'> {
    const r = new Random((Math.imul(this.#seed, 0x9e3779b1) ^ this.#count) >>> 0);
    const related = [...CPV_RELATED[cpv]!];
    const cpvCodes = [cpv];
    for (let n = r.int(1, Math.min(3, related.length)); n > 0; n--) cpvCodes.push(related.splice(r.int(0, related.length - 1), 1)[0]!);
    return { cpv, cpvCodes };
  }
}
