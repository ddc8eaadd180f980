import { stringifyJson } from '../model/exact-json.js';
import { VERSION } from '../version.js';
import type { FormatOptions, Formatter, FormatterState } from './formatter.js';
import { compilePaths, project } from './paths.js';
import { neutralizeForTerminal } from './sanitize.js';
import { parseInstant, tenderFacts, valueText } from './tender-facts.js';

/** What a feed's head says of it. */
export interface AtomFeed {
  /** A stable IRI: the same feed keeps the same id across runs. */
  id: string;
  title: string;
  /** When the feed last changed: the run's time. */
  updated: Date;
  /** Where the feed is published, if known (rel="self"). */
  self?: string;
}

/** One entry; the watch feed and a rolling --feed write theirs through the same function. */
export interface AtomEntry {
  id: string;
  title: string;
  updated: Date;
  published?: Date;
  summary?: string;
  /** Shown as text: the tender's JSON. */
  content?: string;
  /** The notice on the service's site (rel="alternate"). */
  link?: string;
}

/** The feed of a search or export when nothing more specific names it. */
export const DEFAULT_FEED = { id: 'urn:tenders:feed:search', title: 'Tenders' };

/**
 * An Atom feed of tenders: the head, an entry per tender as pages arrive,
 * the foot. An entry's id is `urn:tenders:<tender id>` (percent-encoded), so
 * a reader recognises a tender it has already shown; its `updated` is the
 * publication date (the run's time when there is none); its summary says
 * buyer, deadline and value; its content is the tender as JSON (type
 * "text": RFC 4287 would want any other non-XML type in Base64).
 */
export class AtomFormatter implements Formatter {
  #rows: number;
  readonly #now = new Date();
  readonly #serialize: (item: Record<string, unknown>) => string;

  constructor(opts: FormatOptions, resume?: FormatterState) {
    this.#rows = resume?.rows ?? 0;
    const paths = opts.columns && compilePaths(opts.columns);
    // DEL and C1 controls as JSON escapes: the JSON parses to the exact text, and no reader mangles them.
    const json = (item: Record<string, unknown>) => neutralizeForTerminal(stringifyJson(item), true);
    this.#serialize = paths ? (item) => json(project(item, paths)) : json;
  }

  page(items: readonly Record<string, unknown>[]): string {
    if (items.length === 0) return '';
    let out = this.#rows === 0 ? atomHead({ ...DEFAULT_FEED, updated: this.#now }) : '';
    for (const item of items) out += atomEntry(this.#entry(item));
    this.#rows += items.length;
    return out;
  }

  end(): string {
    return (this.#rows === 0 ? atomHead({ ...DEFAULT_FEED, updated: this.#now }) : '') + atomFoot();
  }

  state(): FormatterState {
    return { rows: this.#rows };
  }

  #entry(item: Record<string, unknown>): AtomEntry {
    const t = tenderFacts(item);
    const published = parseInstant(t.publicationDate)?.date;
    const deadline = parseInstant(t.deadline);
    const summary = [
      t.buyerName && `Buyer: ${t.buyerName}${t.country ? ` (${t.country})` : ''}`,
      `Deadline: ${deadline ? t.deadline : 'none'}`,
      t.valueEur !== undefined && `Estimated value: ${valueText(t.valueEur)}`,
    ];
    return {
      id: tenderEntryId(t.id ?? ''),
      title: t.title ?? t.id ?? '(untitled)',
      updated: published ?? this.#now,
      published,
      summary: summary.filter(Boolean).join('; '),
      content: this.#serialize(item),
      link: t.url,
    };
  }
}

/** The entry id of a tender: `urn:tenders:T-0004569`. */
export function tenderEntryId(id: string): string {
  return `urn:tenders:${encodeURIComponent(id)}`;
}

export function atomHead(feed: AtomFeed): string {
  return (
    '<?xml version="1.0" encoding="utf-8"?>\n' +
    '<feed xmlns="http://www.w3.org/2005/Atom">\n' +
    `  <id>${escapeXml(feed.id)}</id>\n` +
    `  <title type="text">${escapeXml(feed.title)}</title>\n` +
    `  <updated>${rfc3339(feed.updated)}</updated>\n` +
    (feed.self ? `  <link rel="self" href="${escapeAttribute(feed.self)}"/>\n` : '') +
    '  <author><name>tenders</name></author>\n' +
    `  <generator version="${escapeAttribute(VERSION)}">tenders</generator>\n`
  );
}

export function atomEntry(entry: AtomEntry): string {
  return (
    '  <entry>\n' +
    `    <id>${escapeXml(entry.id)}</id>\n` +
    `    <title type="text">${escapeXml(entry.title)}</title>\n` +
    `    <updated>${rfc3339(entry.updated)}</updated>\n` +
    (entry.published ? `    <published>${rfc3339(entry.published)}</published>\n` : '') +
    (entry.link ? `    <link rel="alternate" href="${escapeAttribute(entry.link)}"/>\n` : '') +
    (entry.summary ? `    <summary type="text">${escapeXml(entry.summary)}</summary>\n` : '') +
    (entry.content !== undefined ? `    <content type="text">${escapeXml(entry.content)}</content>\n` : '') +
    '  </entry>\n'
  );
}

export function atomFoot(): string {
  return '</feed>\n';
}

function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// Characters XML 1.0 forbids anywhere, even escaped (C0 controls but tab/LF/CR, lone surrogates, U+FFFE/U+FFFF),
// and those it only discourages but readers mangle (DEL and C1: feedparser reads U+009B as cp1252's "›").
// eslint-disable-next-line no-control-regex
const ILLEGAL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\r': '&#13;', '\t': '&#9;', '\n': '&#10;' };

/**
 * Text for element content: &, < and > as entities, CR as &#13; (a parser
 * would turn a raw one into LF), and each control character XML 1.0 cannot
 * hold or readers mangle replaced by U+FFFD (the JSON content keeps the
 * exact text, escaped).
 */
export function escapeXml(text: string): string {
  return text.replace(ILLEGAL, '\ufffd').replace(/[&<>\r]/g, (c) => ENTITIES[c]!);
}

/** Text for a double-quoted attribute value: also ", and tab and newline as references (else normalised to spaces). */
function escapeAttribute(text: string): string {
  return text.replace(ILLEGAL, '\ufffd').replace(/[&<>"\r\t\n]/g, (c) => ENTITIES[c]!);
}
