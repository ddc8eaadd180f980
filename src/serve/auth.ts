import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether an Authorization header carries the bearer token: compared in
 * constant time (digests of equal length), so the time taken says nothing of
 * how much of a guess was right.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer +(.+)$/i.exec(header ?? '')?.[1]?.trim() ?? '';
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(token)) && given !== '';
}
