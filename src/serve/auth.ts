import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether a text given (a header's, a form's) is the token: compared in
 * constant time (digests of equal length), so the time taken says nothing of
 * how much of a guess was right.
 */
export function tokenMatches(given: string, token: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(token)) && given !== '';
}

/** Whether an Authorization header carries the bearer token. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  return tokenMatches(/^Bearer +(.+)$/i.exec(header ?? '')?.[1]?.trim() ?? '', token);
}
