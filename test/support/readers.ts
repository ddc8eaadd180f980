import { fileURLToPath } from 'node:url';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import AjvDraft04 from 'ajv-draft-04';
import { PYTHON } from './python-csv.js';

/**
 * Independent readers of the formats the CLI writes: Python's icalendar and
 * feedparser (the system Python has them), xmllint, ajv with the OCDS
 * schemas from ../shared/ocds, hyparquet. What they read back is what users'
 * tools will see.
 */

/** The events of an iCalendar text as icalendar parses them (alarms as their TRIGGER durations). */
export function readIcsWithPython(ics: string): { calendar: Record<string, string>; events: Record<string, unknown>[] } {
  const script = `
import sys, json, icalendar
cal = icalendar.Calendar.from_ical(sys.stdin.buffer.read())
out = {'calendar': {k: str(v) for k, v in cal.items()}, 'events': []}
for ev in cal.walk('VEVENT'):
    e = {k: (v.dt.isoformat() if hasattr(v, 'dt') else str(v)) for k, v in ev.items()}
    e['ALARMS'] = [str(a.get('TRIGGER').to_ical().decode()) for a in ev.walk('VALARM')]
    e['ALARM_TEXT'] = [str(a.get('DESCRIPTION')) for a in ev.walk('VALARM')]
    out['events'].append(e)
print(json.dumps(out))
`;
  return JSON.parse(execFileSync(PYTHON, ['-c', script], { input: ics, encoding: 'utf8', maxBuffer: 1 << 28 })) as never;
}

export interface ParsedFeed {
  bozo: boolean;
  bozoMessage: string;
  feed: Record<string, unknown>;
  /** `json`: the tender's JSON of tenders' own element (tenders:json). */
  entries: { id: string; title: string; summary: string; content: string; json: string; updated: string; link: string }[];
}

/** An Atom text as feedparser reads it (bozo: it found the XML not well-formed). */
export function readAtomWithPython(xml: string): ParsedFeed {
  const script = `
import sys, json, feedparser
d = feedparser.parse(sys.stdin.buffer.read())
print(json.dumps({'bozo': bool(d.bozo), 'bozoMessage': str(d.get('bozo_exception', '')), 'feed': {k: str(v) for k, v in d.feed.items() if isinstance(v, str)},
  'entries': [{'id': e.get('id'), 'title': e.get('title'), 'summary': e.get('summary'), 'content': e.content[0].value if 'content' in e else None,
  'json': e.get('tenders_json'), 'updated': e.get('updated'), 'link': e.get('link')} for e in d.entries]}))
`;
  return JSON.parse(execFileSync(PYTHON, ['-c', script], { input: xml, encoding: 'utf8', maxBuffer: 1 << 28 })) as ParsedFeed;
}

/** xmllint's verdict on well-formedness: '' when well-formed, else its complaint. */
export function xmllintErrors(xml: string): string {
  const r = spawnSync('xmllint', ['--noout', '-'], { input: xml, encoding: 'utf8', maxBuffer: 1 << 28 });
  return r.status === 0 ? '' : r.stderr || `exit ${r.status}`;
}

// The round's shared folder beside the checkout (as CI lays it: a clone with shared/ next to it).
const SCHEMAS = fileURLToPath(new URL('../../../shared/ocds', import.meta.url));

/** A validator of OCDS 1.1.5 release packages, both schemas loaded from disk (never the network). */
export function ocdsValidator(): (data: unknown) => { valid: boolean; errors: string } {
  // A CommonJS module: its class is module.exports and, for typed ESM importers, its .default.
  const ajv = new AjvDraft04.default({ allErrors: true, strict: false, validateFormats: false });
  const release = JSON.parse(readFileSync(`${SCHEMAS}/release-schema.json`, 'utf8')) as object;
  const pkg = JSON.parse(readFileSync(`${SCHEMAS}/release-package-schema.json`, 'utf8')) as object;
  ajv.addSchema(release);
  const validate = ajv.compile(pkg);
  return (data) => {
    const valid = validate(data) as boolean;
    return { valid, errors: ajv.errorsText(validate.errors) };
  };
}

