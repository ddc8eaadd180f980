import { createHash } from 'node:crypto';
import { canonicalJson } from '../../model/canonical-json.js';
import { DEFAULT_CPV_PATHS, tenderCpvCodes } from '../../model/cpv.js';
import { stringifyJson } from '../../model/exact-json.js';
import { VERSION } from '../../version.js';
import type { FormatOptions, Formatter, FormatterState } from '../formatter.js';
import { compilePaths, project, valueAt } from '../../model/paths.js';
import { neutralizeForTerminal, replaceIllegalChars } from '../terminal/sanitize.js';
import { parseInstant, tenderFacts, valueText } from './tender-facts.js';
import { webLink } from './web-link.js';

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
  /** What a reader shows: a short list for a person (HTML; see entryContent). */
  content?: string;
  /** The tender's JSON, for programs: an extension element (JSON_ELEMENT). */
  json?: string;
  /** The notice on the service's site (rel="alternate"): an http(s) URL (web-link.ts), else none. */
  link?: string;
}

/** Where a search's or an export's feed comes from: the service (or the local copy) and the query asked. */
export interface FeedSource {
  /** The service's base URL, or the copy's location (file: or postgres: URL; only its hash is written). */
  service: string;
  path: string;
  body: Record<string, unknown>;
}

/** The namespace of the element that carries a tender's JSON in an entry. */
export const JSON_NAMESPACE = 'urn:tenders:atom:1';

/** Fields of a request body that page through results rather than choose them: a feed of the same query keeps its id without them. */
const PAGING = ['limit', 'cursor'];

/**
 * A search's or an export's feed: its id is a hash of the service and the
 * query (paging aside), so two feeds of different queries or services never
 * share one, and the same query keeps its id run after run.
 */
export function searchFeed(source: FeedSource | undefined, updated: Date): AtomFeed {
  if (!source) return { id: 'urn:tenders:feed:search', title: 'Tenders', updated };
  const body = Object.fromEntries(Object.entries(source.body).filter(([key]) => !PAGING.includes(key)));
  const hash = createHash('sha256').update(canonicalJson({ service: source.service, path: source.path, body })).digest('hex').slice(0, 32);
  const url = new URL(source.service);
  const from = url.protocol === 'http:' || url.protocol === 'https:' ? url.host : 'the local copy';
  return { id: `urn:tenders:feed:${hash}`, title: `Tenders from ${from}`, updated };
}

/**
 * An Atom feed of tenders: the head, an entry per tender as pages arrive,
 * the foot. An entry's id is `urn:tenders:<tender id>` (percent-encoded), so
 * a reader recognises a tender it has already shown; its `updated` is the
 * publication date (the run's time when there is none); its summary says
 * buyer, deadline and value; its content lists them for a person (buyer,
 * country, deadline with a countdown, value in EUR, CPV codes) as HTML; the
 * tender's JSON travels in an element of its own namespace (JSON_NAMESPACE),
 * text, as RFC 4287 would want a JSON <content> in Base64. The feed's id
 * derives from the query and the service (searchFeed).
 */
export class AtomFormatter implements Formatter {
  #rows: number;
  readonly #now = new Date();
  readonly #serialize: (item: Record<string, unknown>) => string;
  readonly #watch: WatchFeedInfo | undefined;
  readonly #feed: (updated: Date) => AtomFeed;
  readonly #cpvPaths: readonly string[];

  constructor(opts: FormatOptions, resume?: FormatterState) {
    this.#rows = resume?.rows ?? 0;
    this.#watch = opts.watch;
    this.#feed = opts.watch ? (updated) => watchFeed(opts.watch!.name, updated) : (updated) => searchFeed(opts.feedSource, updated);
    const paths = opts.columns && compilePaths(opts.columns);
    this.#serialize = paths ? (item) => atomJson(project(item, paths)) : atomJson;
    this.#cpvPaths = opts.cpvPaths ?? DEFAULT_CPV_PATHS;
  }

  page(items: readonly Record<string, unknown>[]): string {
    if (items.length === 0) return '';
    let out = this.#rows === 0 ? atomHead(this.#feed(this.#now)) : '';
    for (const item of items) out += atomEntry(this.#entry(item));
    this.#rows += items.length;
    return out;
  }

  end(): string {
    return (this.#rows === 0 ? atomHead(this.#feed(this.#now)) : '') + atomFoot();
  }

  state(): FormatterState {
    return { rows: this.#rows };
  }

  #entry(item: Record<string, unknown>): AtomEntry {
    const watch = this.#watch;
    if (!watch) return tenderEntry(item, this.#now, this.#serialize(item), this.#cpvPaths);
    // A watch's row: the tender with its change beside (changedFields `;`-joined).
    const { change, changedFields, [BEFORE]: before, ...tender } = item as Record<string, unknown> & { [BEFORE]?: Record<string, unknown> };
    const fields = typeof changedFields === 'string' && changedFields !== '' ? changedFields.split(';') : [];
    return changeEntry({ change: String(change), changedFields: fields, tender, before }, watch, this.#now, this.#serialize(tender), this.#cpvPaths);
  }
}

/** A tender's JSON in an entry: DEL and C1 controls as JSON escapes, so the JSON parses to the exact text and no reader mangles them. */
export function atomJson(item: Record<string, unknown>): string {
  return neutralizeForTerminal(stringifyJson(item), true);
}

/** An entry per tender: updated at its publication (else `now`), its summary buyer, deadline and value, its content those for a person. */
function tenderEntry(item: Record<string, unknown>, now: Date, json: string, cpvPaths: readonly string[], changed?: string): AtomEntry {
  const t = tenderFacts(item);
  const published = parseInstant(t.publicationDate)?.date;
  const deadline = parseInstant(t.deadline);
  const summary = [
    t.buyerName && `Buyer: ${t.buyerName}${t.country ? ` (${t.country})` : ''}`,
    `Deadline: ${deadline ? t.deadline : 'none'}`,
    t.valueEur !== undefined && `Estimated value: ${valueText(t.valueEur)}`,
  ];
  const cpv = tenderCpvCodes(item, cpvPaths);
  const lines = [
    changed,
    t.buyerName ? `Buyer: ${t.buyerName}${t.country ? ` (${t.country})` : ''}` : t.country && `Country: ${t.country}`,
    `Deadline: ${deadline ? `${dayAndTime(deadline)} (${countdown(deadline.date, now)})` : 'none'}`,
    t.valueEur !== undefined && `Estimated value: ${valueText(t.valueEur)}`,
    cpv.length > 0 && `CPV: ${cpv.join(', ')}`,
  ];
  return {
    id: tenderEntryId(t.id ?? ''),
    title: t.title ?? t.id ?? '(untitled)',
    updated: published ?? now,
    published,
    summary: summary.filter(Boolean).join('; '),
    content: entryContent(lines.filter((line): line is string => typeof line === 'string' && line !== '')),
    json,
    link: webLink(t.url),
  };
}

/** Lines for a person as the HTML a reader renders: a list, every value escaped. */
function entryContent(lines: readonly string[]): string {
  return `<ul>${lines.map((line) => `<li>${escapeXml(line)}</li>`).join('')}</ul>`;
}

/** "2026-04-01 12:00 UTC", or the day alone for a date without a time. */
function dayAndTime({ date, dateOnly }: { date: Date; dateOnly: boolean }): string {
  const iso = date.toISOString();
  return dateOnly ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** "in 12 days", "in 5 hours", "passed 3 days ago": the deadline from the feed's time. */
function countdown(deadline: Date, now: Date): string {
  const ms = deadline.getTime() - now.getTime();
  const hours = Math.floor(Math.abs(ms) / 3_600_000);
  const span = hours >= 48 ? `${Math.floor(hours / 24)} days` : hours >= 1 ? `${hours} hour${hours === 1 ? '' : 's'}` : 'less than an hour';
  return ms >= 0 ? `in ${span}` : `passed ${span} ago`;
}

/** A changed field's value is shown when its text is at most this long; a longer one is only named. */
const SHORT_VALUE = 120;

/**
 * "Changed: deadline 2026-03-01 → 2026-03-15; description → new text": each
 * changed field, old → new where the watch kept the old value (the summary
 * fields, state.ts KEPT_FIELDS), else its new value when short, else its name.
 */
function changedLine(fields: readonly string[], tender: Record<string, unknown>, before: Record<string, unknown> | undefined): string {
  const paths = compilePaths(fields);
  const parts = fields.map((path, i) => {
    const now = shownValue(valueAt(tender, paths[i]!));
    const old = before && valueAt(before, paths[i]!);
    const then = old === undefined ? undefined : shownValue(old);
    if (now.length > SHORT_VALUE || (then !== undefined && then.length > SHORT_VALUE)) return path;
    return then === undefined ? `${path} → ${now}` : `${path} ${then} → ${now}`;
  });
  return `Changed: ${parts.join('; ')}`;
}

/** A field's value for a person: a date as "2026-03-27 12:00 UTC", nothing as "(none)", an object as its JSON. */
function shownValue(value: unknown): string {
  const instant = typeof value === 'string' ? parseInstant(value) : undefined;
  return instant ? dayAndTime(instant) : value === undefined || value === null ? '(none)' : typeof value === 'object' ? stringifyJson(value) : String(value);
}

/** Which watch's changes a feed holds, and since when (the previous run's time: the same change keeps its id). */
export interface WatchFeedInfo {
  name: string;
  /** An ISO time (the characters of a URN as they are). */
  since: string;
}

/** A watch's change as a feed entry names it. */
export interface ChangeItem {
  change: string;
  changedFields: readonly string[];
  tender: Record<string, unknown>;
  /** What the watch kept of a changed tender before (its summary fields), when it kept it. */
  before?: Record<string, unknown>;
}

/** Where a watch's row carries its `before` to this formatter (a symbol: no other format writes it). */
export const BEFORE = Symbol('before');

const CHANGE_TITLES: Readonly<Record<string, string>> = { new: 'New', changed: 'Changed', gone: 'Gone' };

/**
 * An entry per change of a watch: id `urn:tenders:watch:NAME:SINCE:CHANGE:ID`
 * (the same change, reported again after a failed delivery, keeps its id),
 * updated at the run, its title the change and the tender's title, its
 * content what changed and the tender's facts, its JSON the tender; a gone
 * tender links to its last known notice (the state keeps its URL).
 */
export function changeEntry(item: ChangeItem, watch: WatchFeedInfo, now: Date, json: string, cpvPaths: readonly string[] = DEFAULT_CPV_PATHS): AtomEntry {
  const kinds: Readonly<Record<string, string>> = { new: 'New tender', gone: 'No longer listed by the service (the link is its last known notice)' };
  const changed = item.change === 'changed' ? changedLine(item.changedFields, item.tender, item.before) : kinds[item.change];
  const base = tenderEntry(item.tender, now, json, cpvPaths, changed);
  const id = String(item.tender.id ?? '');
  const kind = CHANGE_TITLES[item.change] ?? item.change;
  const fields = item.changedFields.length > 0 ? ` (${item.changedFields.join(', ')})` : '';
  return {
    ...base,
    id: `urn:tenders:watch:${encodeURIComponent(watch.name)}:${watch.since}:${encodeURIComponent(item.change)}:${encodeURIComponent(id)}`,
    title: `${kind}${fields}: ${base.title}`,
    updated: now,
    summary: `${kind}${fields}. ${base.summary}`,
  };
}

/** A watch's feed: its id names the watch. */
export function watchFeed(name: string, updated: Date): AtomFeed {
  return { id: `urn:tenders:watch:${encodeURIComponent(name)}`, title: `tenders watch ${name}`, updated };
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
    (entry.content !== undefined ? `    <content type="html">${escapeXml(entry.content)}</content>\n` : '') +
    (entry.json !== undefined ? `    <tenders:json xmlns:tenders="${JSON_NAMESPACE}">${escapeXml(entry.json)}</tenders:json>\n` : '') +
    '  </entry>\n'
  );
}

export function atomFoot(): string {
  return '</feed>\n';
}

function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\r': '&#13;', '\t': '&#9;', '\n': '&#10;' };

/**
 * Text for element content: &, < and > as entities, CR as &#13; (a parser
 * would turn a raw one into LF), and each control character XML 1.0 cannot
 * hold or readers mangle replaced by U+FFFD (the JSON content keeps the
 * exact text, escaped).
 */
export function escapeXml(text: string): string {
  return replaceIllegalChars(text, '\ufffd').replace(/[&<>\r]/g, (c) => ENTITIES[c]!);
}

/** Text for a double-quoted attribute value: also ", and tab and newline as references (else normalised to spaces). */
function escapeAttribute(text: string): string {
  return replaceIllegalChars(text, '\ufffd').replace(/[&<>"\r\t\n]/g, (c) => ENTITIES[c]!);
}
