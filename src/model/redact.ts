/**
 * A text without the passwords of the URLs in it (`postgres://alice:pw@host` → `postgres://alice@host`,
 * `password=` parameters dropped): safe to print. The userinfo ends at the last `@` before the
 * host, as URL parsers read it (`alice:p@ss@host`). Matched from `://`, not from the scheme: a
 * pattern starting at every letter took seconds on a long argument.
 */
export function withoutPasswords(text: string): string {
  return text.replace(/(:\/\/[^\s:/?#]*?):[^\s/?#]*@/g, '$1@').replace(PASSWORD_PARAMETERS, dropParameters);
}

/** A text without the user names and passwords of the URLs in it (a user name may be a token): safe to keep in a file. */
export function withoutCredentials(text: string): string {
  return text.replace(/:\/\/[^\s/?#]*@/g, '://').replace(PASSWORD_PARAMETERS, dropParameters);
}

/** `password=` parameters, one after another taken together (pg reads the last). */
const PASSWORD_PARAMETERS = /([?&])password=[^&#\s]*(?:&password=[^&#\s]*)*(&?)/gi;

function dropParameters(_: string, before: string, after: string): string {
  return after ? before : '';
}

/** A text with the passwords of the URLs in it shown as `***` (`postgres://alice:***@host`): a setting as `tenders config` prints it. */
export function maskedPasswords(text: string): string {
  return text.replace(/(:\/\/[^\s:/?#]*?):[^\s/?#]*@/g, '$1:***@').replace(/([?&]password=)[^&#\s]*/gi, '$1***');
}
