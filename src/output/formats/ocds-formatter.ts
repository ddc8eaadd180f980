import { createHash } from 'node:crypto';
import { holdsRawNumber, markHolder, stringifyJson, type JsonObject } from '../../model/exact-json.js';
import type { FormatOptions, Formatter, FormatterState } from '../formatter.js';
import { parseInstant, tenderFacts, type TenderFacts } from './tender-facts.js';

/** What an ocid starts with unless --ocid-prefix says otherwise (registered prefixes look like ocds-a1b2c3). */
export const DEFAULT_OCID_PREFIX = 'ocds-tenders-';

/**
 * The service's statuses as OCDS tenderStatus codes. `closed` (no more bids,
 * not yet awarded) is still an active process in OCDS's terms; the deadline
 * in tenderPeriod.endDate tells it from an open one. OCDS's own codes pass
 * through. Any other status leaves tender.status out (said once, in warnings()).
 */
export const OCDS_STATUSES: Readonly<Record<string, string>> = {
  open: 'active',
  closed: 'active',
  awarded: 'complete',
  cancelled: 'cancelled',
  planning: 'planning',
  planned: 'planned',
  active: 'active',
  complete: 'complete',
  unsuccessful: 'unsuccessful',
  withdrawn: 'withdrawn',
};

/**
 * An OCDS 1.1 release package, streamed: the package head with the first
 * page, a release per tender as pages arrive, the closing brackets at the
 * end; memory does not grow with the export.
 */
export class OcdsFormatter implements Formatter {
  #rows: number;
  readonly #prefix: string;
  readonly #published = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  readonly #unmapped: Map<string, number>;

  constructor(opts: FormatOptions, resume?: FormatterState) {
    this.#rows = resume?.rows ?? 0;
    // A resumed export's warning counts the releases written before the interruption too.
    this.#unmapped = new Map(Object.entries(resume?.unmapped ?? {}).filter(([, n]) => Number.isSafeInteger(n) && n > 0));
    this.#prefix = opts.ocidPrefix ?? DEFAULT_OCID_PREFIX;
  }

  page(items: readonly Record<string, unknown>[]): string {
    let out = '';
    for (const item of items) {
      out += (this.#rows === 0 ? this.#head() : ',\n') + stringifyJson(this.#release(item));
      this.#rows++;
    }
    return out;
  }

  end(): string {
    return this.#rows === 0 ? `${this.#head()}]}\n` : '\n]}\n';
  }

  state(): FormatterState {
    return { rows: this.#rows, unmapped: Object.fromEntries(this.#unmapped) };
  }

  /** The package lost statuses, or breaks the standard: said in cron too. */
  warnings(): string[] {
    const lines: string[] = [];
    if (this.#unmapped.size > 0) {
      const list = [...this.#unmapped].map(([status, n]) => `${status} (${n})`).join(', ');
      lines.push(`OCDS has no tender status for ${list}: tender.status is left out of those releases`);
    }
    if (this.#rows === 0) lines.push('the release package has no releases: OCDS asks for at least one, so validators will refuse it');
    return lines;
  }

  #head(): string {
    const head = {
      uri: `urn:tenders:ocds:${this.#prefix}${this.#published}`,
      publishedDate: this.#published,
      publisher: { name: 'tenders' },
      version: '1.1',
    };
    return `${JSON.stringify(head).slice(0, -1)},"releases":[\n`;
  }

  #release(item: JsonObject): JsonObject {
    const t = tenderFacts(item);
    const id = t.id ?? '';
    const date = parseInstant(t.publicationDate)?.date.toISOString().replace(/\.\d{3}Z$/, 'Z') ?? this.#published;
    const release: JsonObject = {
      ocid: `${this.#prefix}${id}`,
      // A release's id changes when the tender's data does: another release of the same process.
      id: `${id}-${createHash('sha256').update(stringifyJson(item)).digest('hex').slice(0, 12)}`,
      date,
      tag: ['tender'],
      initiationType: 'tender',
    };
    const buyer = buyerOf(t);
    if (buyer) {
      release.buyer = { id: buyer.id, name: buyer.name };
      release.parties = [{ ...buyer, roles: ['buyer'], ...(t.country ? { address: { countryName: t.country } } : {}) }];
    }
    release.tender = this.#tender(t);
    if (holdsRawNumber(t.valueEur)) markHolder(release);
    return release;
  }

  #tender(t: TenderFacts): JsonObject {
    const tender: JsonObject = { id: t.id ?? '' };
    if (t.title !== undefined) tender.title = t.title;
    const code = t.status?.toLowerCase();
    // Own keys only: a status named __proto__ or constructor is no OCDS code.
    const status = code !== undefined && Object.hasOwn(OCDS_STATUSES, code) ? OCDS_STATUSES[code] : undefined;
    if (status) tender.status = status;
    else if (t.status !== undefined) this.#unmapped.set(t.status, (this.#unmapped.get(t.status) ?? 0) + 1);
    if (t.valueEur !== undefined) {
      tender.value = { amount: t.valueEur, currency: 'EUR' };
      if (holdsRawNumber(t.valueEur)) {
        markHolder(tender);
        markHolder(tender.value as object);
      }
    }
    const deadline = parseInstant(t.deadline)?.date;
    if (deadline) tender.tenderPeriod = { endDate: deadline.toISOString().replace(/\.\d{3}Z$/, 'Z') };
    return tender;
  }
}

/** The buyer as an OCDS party: its id, else its name as id (OCDS needs one to cross-reference). */
function buyerOf(t: TenderFacts): { id: string; name?: string } | undefined {
  const id = t.buyerId ?? t.buyerName;
  if (id === undefined) return undefined;
  return { id, ...(t.buyerName !== undefined ? { name: t.buyerName } : {}) };
}
