const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

const counted = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** A span for people, in its largest sensible unit: `45 minutes`, `30 hours` (under two days), `5 days`. */
function span(ms: number): string {
  if (ms < HOUR_MS) return counted(Math.floor(ms / MINUTE_MS), 'minute');
  if (ms < 2 * DAY_MS) return counted(Math.floor(ms / HOUR_MS), 'hour');
  return counted(Math.floor(ms / DAY_MS), 'day');
}

/** How far a deadline is from `now`: `in 5 days`, `closed 3 days ago`. */
export function countdown(deadlineMs: number, nowMs: number): string {
  const ms = deadlineMs - nowMs;
  return ms >= 0 ? `in ${span(ms)}` : `closed ${span(-ms)} ago`;
}
