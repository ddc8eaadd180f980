import { readInstant } from '../model/instant.js';

/**
 * Dates and deadlines as the pages show them: a service date stays as the
 * service wrote its day, an instant is shown in UTC (the page does not know
 * the reader's zone; the script may say it in theirs), and a deadline says
 * how long is left.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The moment a deadline passes: a day named alone lasts to its end (UTC). */
export function deadlineMs(deadline: string | undefined): number | undefined {
  const instant = deadline === undefined ? undefined : readInstant(deadline);
  if (instant === undefined) return undefined;
  return instant.dateOnly ? instant.ms + DAY - 1 : instant.ms;
}

/** "in 5 days", "in 3 hours", "in 12 minutes", "closed": what is left of a deadline at `now`. */
export function countdown(deadline: string | undefined, now: Date): string | undefined {
  const at = deadlineMs(deadline);
  if (at === undefined) return undefined;
  const left = at - now.getTime();
  if (left <= 0) return 'closed';
  const [n, unit] = left >= 2 * DAY ? [Math.floor(left / DAY), 'day'] : left >= 2 * HOUR ? [Math.floor(left / HOUR), 'hour'] : [Math.max(1, Math.floor(left / MINUTE)), 'minute'];
  return `in ${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** A service date or timestamp for a person: the day as written, a time in UTC ("2027-01-14 12:00 UTC"); other text as it is. */
export function dateText(value: string): string {
  const instant = readInstant(value);
  if (instant === undefined || instant.dateOnly) return value;
  return `${new Date(instant.ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The `datetime` attribute of a date: ISO in UTC, or undefined when the text is no date. */
export function machineDate(value: string): string | undefined {
  const instant = readInstant(value);
  if (instant === undefined) return undefined;
  return instant.dateOnly ? value.slice(0, 10) : new Date(instant.ms).toISOString();
}
