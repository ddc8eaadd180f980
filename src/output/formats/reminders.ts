import { UsageError } from '../../errors.js';

/** ics reminders when --remind is not given: 7 days and 1 day before the deadline, in minutes. */
export const DEFAULT_REMINDERS: readonly number[] = [7 * 1440, 1440];

const UNITS: Readonly<Record<string, number>> = { w: 7 * 1440, d: 1440, h: 60, m: 1 };
// Any number of digits: the limit is the time (525600m is a year as 365d is), checked below.
const REMINDER = /^(\d+)([wdhm])$/;
/** A year before a deadline is as early as a reminder makes sense. */
const MAX_MINUTES = 366 * 1440;

const RULE = 'durations before the deadline such as 7d,1d,2h (units w, d, h, m), or none';

/**
 * --remind 7d,1d,2h → minutes before the deadline, longest first, without
 * repeats; `none` → no reminders. A UsageError (exit 2) says the rule.
 */
export function parseReminders(value: string): number[] {
  const text = value.trim().toLowerCase();
  if (text === 'none') return [];
  const minutes = new Set<number>();
  for (const part of text.split(',')) {
    const match = REMINDER.exec(part.trim());
    const total = match ? Number(match[1]) * UNITS[match[2]!]! : NaN;
    if (!(total > 0 && total <= MAX_MINUTES)) {
      throw new UsageError(`--remind takes ${RULE}, at most a year (366d): ${JSON.stringify(part.trim())} is not one`);
    }
    minutes.add(total);
  }
  return [...minutes].sort((a, b) => b - a);
}

/** An RFC 5545 duration before the deadline: 10080 → "-P7D", 150 → "-PT2H30M". */
export function triggerDuration(minutes: number): string {
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  const time = hours || mins ? `T${hours ? `${hours}H` : ''}${mins ? `${mins}M` : ''}` : '';
  return `-P${days ? `${days}D` : ''}${time}`;
}

/** "7 days", "1 day", "2 hours", "1 day 2 hours" for a reminder's text. */
export function reminderText(minutes: number): string {
  const parts: string[] = [];
  const add = (n: number, unit: string) => n > 0 && parts.push(`${n} ${unit}${n === 1 ? '' : 's'}`);
  add(Math.floor(minutes / 1440), 'day');
  add(Math.floor((minutes % 1440) / 60), 'hour');
  add(minutes % 60, 'minute');
  return parts.join(' ');
}
