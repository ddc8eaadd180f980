import { isObject, RawNumber, type JsonObject } from '../../model/exact-json.js';
import { groupDigits } from '../../model/numbers.js';
import { readInstant } from '../../model/instant.js';

/**
 * The fields of a tender that calendar, feed and OCDS output speak of, read
 * from the service's shape (id, title, status, publicationDate, deadline,
 * buyer {id, name, country}, estimatedValue {amountEur}, url). Missing or
 * mistyped fields are undefined: a format leaves out what it cannot say.
 */
export interface TenderFacts {
  id: string | undefined;
  title: string | undefined;
  status: string | undefined;
  publicationDate: string | undefined;
  deadline: string | undefined;
  buyerId: string | undefined;
  buyerName: string | undefined;
  country: string | undefined;
  /** The estimated value in EUR, as a number or the service's exact digits. */
  valueEur: number | RawNumber | undefined;
  url: string | undefined;
}

export function tenderFacts(item: JsonObject): TenderFacts {
  const buyer = isObject(item.buyer) ? item.buyer : {};
  const value = isObject(item.estimatedValue) ? item.estimatedValue : {};
  const amount = value.amountEur;
  return {
    id: text(item.id),
    title: text(item.title),
    status: text(item.status),
    publicationDate: text(item.publicationDate),
    deadline: text(item.deadline),
    buyerId: text(buyer.id),
    buyerName: text(buyer.name),
    country: text(buyer.country),
    valueEur: (typeof amount === 'number' && Number.isFinite(amount)) || amount instanceof RawNumber ? amount : undefined,
    url: text(item.url),
  };
}

/** A string field, or a number id written as text; nothing else. */
function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number' || value instanceof RawNumber) return String(value);
  return undefined;
}

/** A service date read as an instant (see model/instant.ts); undefined when it is none. */
export function parseInstant(value: string | undefined): { date: Date; dateOnly: boolean } | undefined {
  const instant = value === undefined ? undefined : readInstant(value);
  return instant && { date: new Date(instant.ms), dateOnly: instant.dateOnly };
}

/** "15,686,802.17 EUR": a value for a person, grouped, with the service's digits. */
export function valueText(amount: number | RawNumber): string {
  return `${groupDigits(String(amount))} EUR`;
}
