/** An http(s) URL spelled in visible characters only: no whitespace, control, format (bidi) or unassigned ones. */
const WEB_URL = /^https?:\/\/[^\s\p{C}]+$/iu;

/**
 * The service's URL of a notice as a link (Atom's href, iCalendar's URL), or
 * undefined: only an http or https URL that parses becomes one, so a
 * `javascript:` URL or a value carrying a line break (a header of its own in
 * a calendar) never reaches a reader as something to follow.
 */
export function webLink(url: string | undefined): string | undefined {
  return url !== undefined && WEB_URL.test(url) && URL.canParse(url) ? url : undefined;
}
