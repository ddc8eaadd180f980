/** A text without the passwords of the URLs in it (`postgres://alice:pw@host` → `postgres://alice@host`): safe to print. */
export function withoutPasswords(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s/@]*@/gi, '$1@');
}

/** A text without the user names and passwords of the URLs in it (a user name may be a token): safe to keep in a file. */
export function withoutCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1');
}
