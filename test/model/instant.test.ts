import { describe, expect, it } from 'vitest';
import { readInstant } from '../../src/model/instant.js';
import { parseInstant } from '../../src/output/formats/tender-facts.js';

describe('readInstant', () => {
  it('reads a date-time with its offset, and a date alone as midnight UTC', () => {
    expect(readInstant('2026-03-01T12:00:00+01:00')).toEqual({ ms: Date.UTC(2026, 2, 1, 11), dateOnly: false });
    expect(readInstant('2026-03-01T12:00Z')).toEqual({ ms: Date.UTC(2026, 2, 1, 12), dateOnly: false });
    expect(readInstant('2028-02-29')).toEqual({ ms: Date.UTC(2028, 1, 29), dateOnly: true });
  });

  it('reads no day the calendar lacks (JavaScript rolls 30 February over into March) and no local time', () => {
    for (const text of ['2026-02-29', '2026-02-30T12:00:00Z', '2026-04-31', '2026-13-01', '2026-00-10', '2026-01-00', '2100-02-29', '2026-05-01T10:00:00', '2026-05-01 10:00', '2026-01-01T25:00:00Z', 'soon']) {
      expect(readInstant(text), text).toBeUndefined();
    }
    expect(readInstant('2000-02-29T00:00:00Z')).toBeDefined();
  });

  it('reads no instant outside the years 0001-9999 once in UTC: RFC 3339, iCalendar and PostgreSQL write four-digit years from 0001', () => {
    for (const text of ['0000-06-01', '0000-12-31T23:59:59Z', '0001-01-01T00:30:00+01:00', '9999-12-31T23:00:00-05:00']) {
      expect(readInstant(text), text).toBeUndefined();
    }
    expect(readInstant('0001-01-01T00:00:00Z')).toEqual({ ms: Date.parse('0001-01-01T00:00:00Z'), dateOnly: false });
    expect(readInstant('9999-12-31T23:59:59.999Z')).toBeDefined();
    expect(readInstant('9999-12-31T18:00:00-05:00')).toBeDefined();
  });

  it('is what calendars, feeds, OCDS and Parquet read a deadline with', () => {
    expect(parseInstant('2026-02-30T12:00:00Z')).toBeUndefined();
    // Not +010000-01-01T04:00:00Z in a calendar's DTSTART, an OCDS endDate or a feed's updated.
    expect(parseInstant('9999-12-31T23:00:00-05:00')).toBeUndefined();
    expect(parseInstant('2026-02-28T12:00:00Z')?.date.toISOString()).toBe('2026-02-28T12:00:00.000Z');
  });
});
