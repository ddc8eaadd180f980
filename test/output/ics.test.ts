import { describe, expect, it } from 'vitest';
import { createFormatter, type FormatOptions } from '../../src/output/formatter.js';
import { contentLine, escapeText, IcsFormatter } from '../../src/output/formats/ics-formatter.js';
import { parseReminders, triggerDuration } from '../../src/output/formats/reminders.js';
import { HOSTILE_TITLE, hostileTenders } from '../support/hostile-tenders.js';
import { readIcsWithPython } from '../support/readers.js';
import { pagedTenders } from '../support/fake-client.js';
import { runInProcess } from '../support/run.js';

const base: FormatOptions = { header: true, headerStyle: 'path', excelSafe: false, color: false };

function write(opts: FormatOptions = base, pages = [hostileTenders()]): { text: string; formatter: IcsFormatter } {
  const formatter = new IcsFormatter(opts);
  let text = '';
  for (const page of pages) text += String(formatter.page(page));
  return { text: text + String(formatter.end()), formatter };
}

/** RFC 5545 3.1: every line ends in CRLF and is at most 75 octets; continuations start with a space. */
function checkLines(text: string): void {
  expect(text.endsWith('\r\n')).toBe(true);
  expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  for (const line of text.split('\r\n').slice(0, -1)) {
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    expect(Buffer.from(line).toString('utf8')).not.toContain('\ufffd'); // no UTF-8 sequence split at a fold
  }
}

describe('ics', () => {
  it('writes an event per tender with a deadline that icalendar reads back exactly, and says how many it left out', () => {
    const { text, formatter } = write();
    checkLines(text);
    const { calendar, events } = readIcsWithPython(text);
    expect(calendar).toMatchObject({ VERSION: '2.0', METHOD: 'PUBLISH' });
    expect(events.map((e) => e.UID)).toEqual(['T-1@tenders.invalid', 'T-3@tenders.invalid']);
    const [hostile, long] = events;
    // TEXT cannot hold control characters: they are dropped; the rest survives, line break as a newline.
    expect(hostile!.SUMMARY).toBe(HOSTILE_TITLE.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '').replace('\r\n', '\n'));
    expect(hostile!.DTSTART).toBe('2027-01-14T12:00:00+00:00');
    expect(hostile!.DESCRIPTION).toBe(
      'Buyer: Büro <&> "Ost"\nCountry: DEU\nEstimated value: 1,234.5 EUR\nStatus: open\nTender: T-1\nhttps://tenders.example.org/notices/T-1',
    );
    expect(hostile!.ALARMS).toEqual(['-P7D', '-P1D']);
    expect(long!.SUMMARY).toBe('Δήμος 東京 🚧 '.repeat(20));
    expect(long!.DTSTART).toBe('2027-02-01T07:30:00+00:00'); // in UTC
    expect(String(long!.DESCRIPTION)).toContain('Buyer: Ville, de; Lille\nCountry: FRA\nEstimated value: 12,345,678,901,234,567,890.5 EUR');
    expect(formatter.hints()).toEqual(['1 tender has no deadline (or none a calendar can read) and is not in the calendar.']);
  });

  it("in a watch's calendar, a gone tender's event is cancelled, under its UID and without reminders; new and changed ones are due", () => {
    const watch = { name: 'w', since: '2026-11-24T04:00:00.000Z' };
    const [t1, , t3] = hostileTenders();
    const rows = [
      { ...t1!, change: 'new', changedFields: '' },
      { id: 'T-3', title: 'Closed early', deadline: t3!.deadline, change: 'gone', changedFields: '' },
    ];
    const { text } = write({ ...base, watch }, [rows]);
    checkLines(text);
    const { events } = readIcsWithPython(text);
    expect(events.map((e) => [e.UID, e.STATUS ?? null, (e.ALARMS as string[]).length])).toEqual([
      ['T-1@tenders.invalid', null, 2],
      ['T-3@tenders.invalid', 'CANCELLED', 0],
    ]);
    // An export of tenders has no changes: a field named change is data, not a cancellation.
    expect(write(base, [rows]).text).not.toContain('STATUS:CANCELLED');
  });

  it('keeps UIDs stable across runs and writes the reminders asked for, or none', () => {
    const a = write({ ...base, reminders: [120, 15] }).text;
    const b = write({ ...base, reminders: [] }).text;
    expect(readIcsWithPython(a).events.map((e) => e.ALARMS)).toEqual([['-PT2H', '-PT15M'], ['-PT2H', '-PT15M']]);
    expect(readIcsWithPython(a).events[0]!.ALARM_TEXT).toContain(`Deadline in 2 hours: ${readIcsWithPython(a).events[0]!.SUMMARY}`);
    expect(b).not.toContain('VALARM');
    expect(readIcsWithPython(b).events.map((e) => e.UID)).toEqual(readIcsWithPython(a).events.map((e) => e.UID));
  });

  it('writes an empty but valid calendar when nothing matched, and an all-day event for a date-only deadline', () => {
    const empty = write(base, []).text;
    expect(readIcsWithPython(empty).events).toEqual([]);
    expect(empty).toMatch(/^BEGIN:VCALENDAR\r\n[\s\S]*END:VCALENDAR\r\n$/);
    const day = write(base, [[{ id: 'D', title: 'x', deadline: '2027-03-01' }]]).text;
    expect(day).toContain('DTSTART;VALUE=DATE:20270301\r\n');
    expect(readIcsWithPython(day).events[0]!.DTSTART).toBe('2027-03-01');
  });

  it('continues a resumed file: no second calendar head, the count of left-out tenders carried on', () => {
    const [a, b, c] = hostileTenders();
    const first = new IcsFormatter(base);
    const head = String(first.page([a!, b!]));
    const resumed = new IcsFormatter(base, first.state());
    const text = head + String(resumed.page([c!])) + String(resumed.end());
    expect(text.match(/BEGIN:VCALENDAR/g)).toHaveLength(1);
    expect(readIcsWithPython(text).events).toHaveLength(2);
    expect(resumed.hints()[0]).toMatch(/^1 tender/);
  });

  it('escapes TEXT and folds at 75 octets between whole UTF-8 sequences', () => {
    expect(escapeText('a\\b;c,d\r\ne\nf\rg\u0007')).toBe('a\\\\b\\;c\\,d\\ne\\nf\\ng');
    // Every other control is dropped: C1 (U+009B is a one-character CSI), DEL, the noncharacters, a lone surrogate.
    expect(escapeText('CSI \u009b2J \u0085next\u007f\ufffe\uffff\ud800 tab\there \u202eRTL')).toBe('CSI 2J next tab\there \u202eRTL');
    const line = contentLine(`SUMMARY:${'é'.repeat(40)}${'🚧'.repeat(30)}`);
    checkLines(line);
    expect(line.replace(/\r\n /g, '').replace(/\r\n$/, '')).toBe(`SUMMARY:${'é'.repeat(40)}${'🚧'.repeat(30)}`);
  });

  it('makes a URL and a link of http(s) URLs only: javascript:, a line break or a space leave them out', () => {
    const url = (value: string) => {
      const text = write(base, [[{ id: 'x', title: 't', deadline: '2027-01-01T00:00:00Z', url: value }]]).text;
      const { events } = readIcsWithPython(text);
      expect(events).toHaveLength(1); // no line of the service's broke the calendar
      return { URL: events[0]!.URL, link: String(events[0]!.DESCRIPTION).split('\n').slice(1) };
    };
    expect(url('https://tenders.example.org/n/1?a=1;b=2,3')).toEqual({ URL: 'https://tenders.example.org/n/1?a=1;b=2,3', link: ['https://tenders.example.org/n/1?a=1;b=2,3'] });
    expect(url('HTTP://example.org/x')).toEqual({ URL: 'HTTP://example.org/x', link: ['HTTP://example.org/x'] });
    for (const bad of ['javascript:alert(1)', 'https://x.org/\r\nX-EVIL:1', 'https://x.org/a b', 'https://x.org/\u0085', 'https://x.org/\u202e', 'https://', 'http://[::1', 'file:///etc/passwd', 'mailto:a@b.c']) {
      expect(url(bad), bad).toEqual({ URL: undefined, link: [] });
    }
  });
});

describe('ics on a terminal', () => {
  it('keeps its CRLF line ends and spells out the controls TEXT keeps (bidi); C1 is dropped, as anywhere', async () => {
    const formatter = await createFormatter('ics', { ...base, terminal: true });
    const text = String(formatter.page([{ id: 'x', title: 'CSI \u009b2J \u202eevil', deadline: '2027-01-01T00:00:00Z' }]));
    expect(text).toContain('SUMMARY:CSI 2J \\u202eevil\r\n');
    expect(text).not.toContain('\\r');
  });
});

describe('ics hints', () => {
  it('tenders left out for want of a deadline are a hint: said with --verbose, not in cron', async () => {
    const noDeadline = pagedTenders(2, (i) => ({ deadline: i === 1 ? '2027-01-01' : null }));
    const cron = await runInProcess(['search', '-f', 'ics'], noDeadline);
    expect(cron).toMatchObject({ code: 0, stderr: '' });
    const verbose = await runInProcess(['search', '-f', 'ics', '-v'], noDeadline);
    expect(verbose.stderr).toContain('1 tender has no deadline (or none a calendar can read) and is not in the calendar.\n');
    expect(verbose.stderr).not.toContain('warning');
  });
});

describe('--remind', () => {
  it('parses durations longest first without repeats, and none', () => {
    expect(parseReminders('2h,7d,1d,1w,90m')).toEqual([10080, 1440, 120, 90]);
    expect(parseReminders('none')).toEqual([]);
    expect(triggerDuration(1440 + 150)).toBe('-P1DT2H30M');
    expect(triggerDuration(10080)).toBe('-P7D');
  });

  it('refuses what is not a duration, saying the rule', () => {
    for (const bad of ['', '7', '0d', '-1d', '7x', '1d,,2h', '400d']) {
      expect(() => parseReminders(bad)).toThrow(/--remind takes durations before the deadline such as 7d,1d,2h/);
    }
  });

  it('takes up to a year (366 days) in any unit and any number of digits, and nothing beyond', () => {
    const year = 366 * 1440;
    expect(parseReminders('525600m,8760h,366d,52w,0000090m')).toEqual([year, 525600, 52 * 7 * 1440, 90]);
    expect(parseReminders(`${year}m`)).toEqual([year]);
    for (const bad of [`${year + 1}m`, '8785h', '367d', '53w', '9'.repeat(400) + 'm']) {
      expect(() => parseReminders(bad), bad).toThrow(/at most a year \(366d\)/);
    }
  });
});
