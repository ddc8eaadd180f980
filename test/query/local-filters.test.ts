import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { parseEur, parseInstant, parseWords } from '../../src/query/local-values.js';
import { localSelection } from '../../src/query/tender-selection.js';

const NOW = new Date('2026-03-15T10:30:00.000Z');

describe('dates (--since, --until, --deadline-after, --deadline-before)', () => {
  const start = (text: string) => parseInstant('--since', text, NOW, 'start');
  const end = (text: string) => parseInstant('--until', text, NOW, 'end');

  it('reads a date alone as a UTC day: a lower bound from its start, an upper bound to its last millisecond', () => {
    expect(start('2026-03-01')).toBe('2026-03-01T00:00:00.000Z');
    expect(end('2026-03-31')).toBe('2026-03-31T23:59:59.999Z');
    expect(end('2024-02-29')).toBe('2024-02-29T23:59:59.999Z');
    expect(start(' 0099-01-01 ')).toBe('0099-01-01T00:00:00.000Z');
  });

  it('reads a timestamp with its zone as that instant, whichever bound', () => {
    expect(start('2026-03-01T09:30:00Z')).toBe('2026-03-01T09:30:00.000Z');
    expect(end('2026-03-01T09:30:00Z')).toBe('2026-03-01T09:30:00.000Z');
    expect(start('2026-03-01T09:30+01:00')).toBe('2026-03-01T08:30:00.000Z');
    expect(start('2026-03-01 09:30:15.25-0230')).toBe('2026-03-01T12:00:15.250Z');
    expect(start('2026-03-01t00:00:00.123456z')).toBe('2026-03-01T00:00:00.123Z');
    expect(start('2026-03-01T00:30+05')).toBe('2026-02-28T19:30:00.000Z');
  });

  it('counts durations back from now (m, h, d, w), ahead with +, and knows now and today', () => {
    expect(start('30m')).toBe('2026-03-15T10:00:00.000Z');
    expect(start('12h')).toBe('2026-03-14T22:30:00.000Z');
    expect(start('7d')).toBe('2026-03-08T10:30:00.000Z');
    expect(end('2w')).toBe('2026-03-01T10:30:00.000Z');
    expect(end('+14d')).toBe('2026-03-29T10:30:00.000Z');
    expect(start('0d')).toBe(NOW.toISOString());
    expect(start('now')).toBe(NOW.toISOString());
    expect(start('today')).toBe('2026-03-15T00:00:00.000Z');
    expect(end('today')).toBe('2026-03-15T23:59:59.999Z');
  });

  it('refuses a timestamp without zone, naming the fix', () => {
    expect(() => start('2026-03-01T09:30')).toThrow(
      new UsageError('--since 2026-03-01T09:30 has no time zone: add Z for UTC or an offset such as +01:00 (or give a date alone, read as UTC)'),
    );
  });

  it('refuses a unit it does not know, saying which it does', () => {
    expect(() => start('1y')).toThrow(/--since 1y: a duration's unit is m \(minutes\), h \(hours\), d \(days\) or w \(weeks\); for months give a date/);
    expect(() => start('3M')).toThrow(/unit is m/);
  });

  it.each(['', 'yesterday', '2026-02-30', '2026-13-01', '2026-3-1', '01.03.2026', '2026-03-01T24:00Z', '2026-03-01T10:60Z', '2026-03-01T10:00+24:00', '-7d', '7 d', '1.5d', '0000-06-01'])(
    'refuses %j with the rule',
    (text) => {
      expect(() => start(text)).toThrow(UsageError);
      expect(() => start(text)).toThrow(/^--since takes a date \(2026-03-01\), a timestamp with its zone .*, now, today, or a time back from now \(30m, 12h, 7d, 2w; \+7d is ahead\)/);
    },
  );

  it('refuses what falls outside the years 0001 to 9999', () => {
    expect(() => start('99999999w')).toThrow(/within the years 0001 to 9999, not '99999999w'/);
    expect(() => start('9999-12-31T23:00-05:00')).toThrow(/within the years 0001 to 9999/);
  });
});

describe('values in EUR (--min-value, --max-value)', () => {
  it('takes non-negative decimals and the exponent form', () => {
    expect(parseEur('--min-value', '250000')).toBe(250000);
    expect(parseEur('--min-value', '1500.50')).toBe(1500.5);
    expect(parseEur('--min-value', '.5')).toBe(0.5);
    expect(parseEur('--min-value', '7.')).toBe(7);
    expect(parseEur('--min-value', '0')).toBe(0);
    expect(parseEur('--min-value', '1e6')).toBe(1_000_000);
    expect(parseEur('--min-value', '2.5E5')).toBe(250_000);
    expect(parseEur('--min-value', ' 42 ')).toBe(42);
  });

  it.each(['', '-5', 'abc', '1e', '1e400', '€5', '5 EUR', '0x10', 'Infinity', '1_000'])('refuses %j with the rule', (text) => {
    expect(() => parseEur('--max-value', text)).toThrow(
      new UsageError(`--max-value takes an amount in EUR, a number 0 or above such as 250000, 1500.50 or 1e6, not '${text}'`),
    );
  });

  it('refuses thousands separators and decimal commas, saying so', () => {
    expect(() => parseEur('--min-value', '1,000,000')).toThrow(/no thousands separators or decimal commas: 1500000 or 1\.5e6, 1500\.50/);
    expect(() => parseEur('--min-value', '1500,50')).toThrow(/no thousands separators/);
  });
});

describe('WORDS', () => {
  it('are one full-text query; none, or only spaces, is no query', () => {
    expect(parseWords(['hospital', 'cleaning'])).toBe('hospital cleaning');
    expect(parseWords(['"hospital cleaning" OR clinic*'])).toBe('"hospital cleaning" OR clinic*');
    expect(parseWords([])).toBeUndefined();
    expect(parseWords(['  '])).toBeUndefined();
  });
});

describe('localSelection', () => {
  it('is empty for no flags: every stored tender', () => {
    expect(localSelection({}, NOW)).toEqual({});
    expect(localSelection({ words: [], country: [] }, NOW)).toEqual({});
  });

  it('turns every flag into its field', () => {
    expect(
      localSelection(
        {
          words: ['hospital', 'cleaning'],
          country: ['deu,fra'],
          status: ['OPEN'],
          sort: 'DEADLINE',
          order: 'asc',
          since: '7d',
          until: '2026-03-31',
          deadlineAfter: 'now',
          deadlineBefore: '+14d',
          minValue: '1e5',
          maxValue: '5000000',
          sync: 'deu-open',
          limit: '20',
        },
        NOW,
      ),
    ).toEqual({
      words: 'hospital cleaning',
      countries: ['DEU', 'FRA'],
      statuses: ['open'],
      sortBy: 'deadline',
      sortOrder: 'asc',
      publishedSince: '2026-03-08T10:30:00.000Z',
      publishedUntil: '2026-03-31T23:59:59.999Z',
      deadlineAfter: '2026-03-15T10:30:00.000Z',
      deadlineBefore: '2026-03-29T10:30:00.000Z',
      minValueEur: 100_000,
      maxValueEur: 5_000_000,
      sync: 'deu-open',
    });
  });

  it('checks each value by its rule, as the online flags are checked', () => {
    expect(() => localSelection({ country: ['de'] }, NOW)).toThrow(/--country takes three-letter country codes/);
    expect(() => localSelection({ sort: 'title' }, NOW)).toThrow(/--sort takes one of/);
    expect(() => localSelection({ sync: '.hidden' }, NOW)).toThrow(new UsageError("a sync name is up to 100 letters, digits, '-', '_' and '.', not starting with '.': '.hidden' is not one"));
    expect(() => localSelection({ deadlineBefore: 'soon' }, NOW)).toThrow(/^--deadline-before takes a date/);
    expect(() => localSelection({ minValue: '-1' }, NOW)).toThrow(/^--min-value takes an amount in EUR/);
  });

  it('refuses a range whose lower bound is above its upper one', () => {
    expect(() => localSelection({ since: '2026-04-01', until: '2026-03-31' }, NOW)).toThrow(
      new UsageError('--since (2026-04-01T00:00:00.000Z) is after --until (2026-03-31T23:59:59.999Z): no tender can match both'),
    );
    expect(() => localSelection({ deadlineAfter: '+7d', deadlineBefore: 'now' }, NOW)).toThrow(/^--deadline-after .* is after --deadline-before/);
    expect(() => localSelection({ minValue: '500', maxValue: '100' }, NOW)).toThrow(/^--min-value \(500\) is after --max-value \(100\)/);
    expect(localSelection({ since: '2026-03-31', until: '2026-03-31' }, NOW)).toEqual({
      publishedSince: '2026-03-31T00:00:00.000Z',
      publishedUntil: '2026-03-31T23:59:59.999Z',
    });
    expect(localSelection({ minValue: '5', maxValue: '5' }, NOW)).toEqual({ minValueEur: 5, maxValueEur: 5 });
  });

  it('refuses --filter, which only the service can apply', () => {
    expect(() => localSelection({ filter: ['minValue=5'] }, NOW)).toThrow(
      new UsageError(
        '--filter sends a field to the service, which a local query (--local) does not ask: select with WORDS, --since/--until, --deadline-after/--deadline-before or --min-value/--max-value',
      ),
    );
  });
});
