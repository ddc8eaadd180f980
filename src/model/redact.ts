/**
 * A text without the passwords of the URLs in it (`postgres://alice:pw@host` → `postgres://alice@host`,
 * a `password=` parameter dropped): safe to print. The userinfo ends at the last `@` before the
 * host, as URL parsers read it (`alice:p@ss@host`).
 */
export function withoutPasswords(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/?#]*?):[^\s/?#]*@/gi, '$1@').replace(PASSWORD_PARAMETER, dropParameter);
}

/** A text without the user names and passwords of the URLs in it (a user name may be a token): safe to keep in a file. */
export function withoutCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi, '$1').replace(PASSWORD_PARAMETER, dropParameter);
}

const PASSWORD_PARAMETER = /([?&])password=[^&#\s]*(&?)/gi;

function dropParameter(_: string, before: string, after: string): string {
  return after ? before : '';
}
