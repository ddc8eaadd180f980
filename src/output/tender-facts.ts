import { isObject, RawNumber, type JsonObject } from '../model/exact-json.js';

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

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
/** An RFC 3339 date-time with its offset, as the service writes deadlines. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** A service date read as an instant: a date-time with offset, or a date alone (midnight UTC); else undefined. */
export function parseInstant(value: string | undefined): { date: Date; dateOnly: boolean } | undefined {
  if (value === undefined) return undefined;
  const dateOnly = DATE_ONLY.test(value);
  if (!dateOnly && !DATE_TIME.test(value)) return undefined;
  const date = new Date(dateOnly ? `${value}T00:00:00Z` : value);
  return Number.isNaN(date.getTime()) ? undefined : { date, dateOnly };
}

/** "15,686,802.17 EUR": a value for a person, grouped, with the service's digits. */
export function valueText(amount: number | RawNumber): string {
  const [whole, fraction] = String(amount).split('.');
  return `${whole!.replace(/\B(?=(\d{3})+$)/g, ',')}${fraction ? `.${fraction}` : ''} EUR`;
}
