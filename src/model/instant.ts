/**
 * A service's date text as an instant, one reading for every part that reads
 * one (the local copy's date columns, calendars, feeds, OCDS, Parquet): an RFC
 * 3339 date-time with its offset, or a date alone (midnight UTC), on a day the
 * calendar has, in the years 0001 to 9999 once in UTC (what RFC 3339,
 * iCalendar and PostgreSQL's timestamps write). Anything else is no date: not
 * a local time that depends on the machine, not a day JavaScript rolls over
 * (2026-02-30 as 2 March), not 0000-06-01.
 */

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** The instant's milliseconds, and whether the text was a date alone; undefined for no date. */
export function readInstant(text: string): { ms: number; dateOnly: boolean } | undefined {
  const dateOnly = DATE_ONLY.exec(text);
  const parts = dateOnly ?? DATE_TIME.exec(text);
  if (!parts || !isCalendarDay(Number(parts[1]), Number(parts[2]), Number(parts[3]))) return undefined;
  const ms = Date.parse(dateOnly ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(ms)) return undefined;
  const year = new Date(ms).getUTCFullYear();
  return year < 1 || year > 9999 ? undefined : { ms, dateOnly: dateOnly !== null };
}

function isCalendarDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31);
}
