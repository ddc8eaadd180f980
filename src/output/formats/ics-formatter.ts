import { VERSION } from '../../version.js';
import type { FormatOptions, Formatter, FormatterState } from '../formatter.js';
import { formatCount } from '../../model/numbers.js';
import { DEFAULT_REMINDERS, reminderText, triggerDuration } from './reminders.js';
import { parseInstant, tenderFacts, valueText, type TenderFacts } from './tender-facts.js';
import { replaceIllegalChars } from '../terminal/sanitize.js';
import { webLink } from './web-link.js';

/**
 * The right-hand side of every UID: a reserved top-level domain (RFC 2606),
 * so `<tender id>@tenders.invalid` never collides with another producer's
 * events, and stays the same across runs: a subscribed calendar updates the
 * event of a tender instead of adding a second one.
 */
export const UID_DOMAIN = 'tenders.invalid';

const MAX_OCTETS = 75;
const CRLF = '\r\n';

/**
 * A deadline calendar: one VEVENT per tender with a deadline, others left out
 * (counted in hints()). DTSTART is the deadline in UTC, with no DTEND: RFC
 * 5545 makes it an instant, which is what a deadline is (a date-only
 * deadline is an all-day event). TRANSP:TRANSPARENT keeps deadlines out of
 * free/busy. Each event carries a display VALARM per reminder.
 */
export class IcsFormatter implements Formatter {
  #rows: number;
  #leftOut: number;
  readonly #reminders: readonly number[];
  readonly #stamp = utcStamp(new Date());
  /** Rows are a watch's changes: a gone tender's event is cancelled. */
  readonly #watch: boolean;

  constructor(opts: FormatOptions, resume?: FormatterState) {
    this.#rows = resume?.rows ?? 0;
    this.#leftOut = resume?.leftOut ?? 0;
    this.#reminders = opts.reminders ?? DEFAULT_REMINDERS;
    this.#watch = opts.watch !== undefined;
  }

  page(items: readonly Record<string, unknown>[]): string {
    if (items.length === 0) return '';
    let out = this.#rows === 0 ? calendarHead() : '';
    for (const item of items) {
      const event = this.#event(tenderFacts(item), this.#watch && item.change === 'gone');
      if (event) out += event;
      else this.#leftOut++;
    }
    this.#rows += items.length;
    return out;
  }

  end(): string {
    return (this.#rows === 0 ? calendarHead() : '') + contentLine('END:VCALENDAR');
  }

  state(): FormatterState {
    return { rows: this.#rows, leftOut: this.#leftOut };
  }

  hints(): string[] {
    const n = this.#leftOut;
    if (n === 0) return [];
    return [`${formatCount(n)} ${n === 1 ? 'tender has' : 'tenders have'} no deadline (or none a calendar can read) and ${n === 1 ? 'is' : 'are'} not in the calendar.`];
  }

  /**
   * A tender's event; `gone` (a watch's tender the service no longer lists): STATUS:CANCELLED, under the
   * same UID, without reminders, so that a calendar that had its event shows it cancelled, not due.
   */
  #event(t: TenderFacts, gone: boolean): string | undefined {
    const deadline = parseInstant(t.deadline);
    if (!deadline || t.id === undefined) return undefined;
    const title = t.title ?? t.id;
    const start = deadline.dateOnly ? `DTSTART;VALUE=DATE:${utcStamp(deadline.date).slice(0, 8)}` : `DTSTART:${utcStamp(deadline.date)}`;
    let out =
      contentLine('BEGIN:VEVENT') +
      contentLine(`UID:${escapeText(`${t.id}@${UID_DOMAIN}`)}`) +
      contentLine(`DTSTAMP:${this.#stamp}`) +
      contentLine(start) +
      contentLine(`SUMMARY:${escapeText(title)}`) +
      contentLine(`DESCRIPTION:${escapeText(description(t))}`) +
      contentLine('TRANSP:TRANSPARENT');
    const link = webLink(t.url);
    if (link) out += contentLine(`URL:${link}`);
    if (gone) return out + contentLine('STATUS:CANCELLED') + contentLine('END:VEVENT');
    for (const minutes of this.#reminders) {
      out +=
        contentLine('BEGIN:VALARM') +
        contentLine('ACTION:DISPLAY') +
        contentLine(`DESCRIPTION:${escapeText(`Deadline in ${reminderText(minutes)}: ${title}`)}`) +
        contentLine(`TRIGGER:${triggerDuration(minutes)}`) +
        contentLine('END:VALARM');
    }
    return out + contentLine('END:VEVENT');
  }
}

function calendarHead(): string {
  return (
    contentLine('BEGIN:VCALENDAR') +
    contentLine('VERSION:2.0') +
    contentLine(`PRODID:-//tenders//tenders ${VERSION}//EN`) +
    contentLine('CALSCALE:GREGORIAN') +
    contentLine('METHOD:PUBLISH') +
    contentLine('X-WR-CALNAME:Tender deadlines')
  );
}

/** Buyer, country, estimated value, status, id and the notice's link, a line each. */
function description(t: TenderFacts): string {
  const lines = [
    t.buyerName && `Buyer: ${t.buyerName}`,
    t.country && `Country: ${t.country}`,
    t.valueEur !== undefined && `Estimated value: ${valueText(t.valueEur)}`,
    t.status && `Status: ${t.status}`,
    `Tender: ${t.id}`,
    webLink(t.url), // a client makes links of URLs in the text too
  ];
  return lines.filter(Boolean).join('\n');
}

/** 20270114T120000Z */
function utcStamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/**
 * RFC 5545 TEXT (3.3.11): backslash, semicolon and comma escaped, any line
 * break as \n; other controls (C0, DEL, C1), U+FFFE/U+FFFF and lone
 * surrogates dropped, as TEXT and calendar readers cannot take them.
 */
export function escapeText(text: string): string {
  return replaceIllegalChars(text, '')
    .replace(/[\\;,]/g, (c) => `\\${c}`)
    .replace(/\r\n|\r|\n/g, '\\n');
}

/**
 * One content line, folded (3.1): no line longer than 75 octets before its
 * CRLF, continuation lines starting with a space; a fold never splits a
 * UTF-8 sequence (it falls between whole code points).
 */
export function contentLine(line: string): string {
  if (Buffer.byteLength(line) <= MAX_OCTETS) return line + CRLF;
  let out = '';
  let octets = 0;
  for (const char of line) {
    const size = Buffer.byteLength(char);
    if (octets + size > MAX_OCTETS) {
      out += `${CRLF} `;
      octets = 1;
    }
    out += char;
    octets += size;
  }
  return out + CRLF;
}
