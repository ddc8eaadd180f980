import { createHmac, timingSafeEqual } from 'node:crypto';
import { SIGN_IN_PATH } from '../web/pages/sign-in-page.js';
import { isPagePath, signInAnswer } from '../web/web-handler.js';
import type { WebResponse } from '../web/web-request.js';
import { tokenMatches } from './auth.js';

/**
 * A browser's way past `--token-file` (docs/web.md, "Signing in"): a browser
 * cannot send a bearer token, so a person types the token once into the
 * sign-in page and gets a cookie instead. The cookie holds no token and no
 * state of the server: it is HMAC-SHA256 of a fixed label under the token, so
 * every replica with the token accepts it and a new token signs everyone out.
 */
export const SESSION_COOKIE = 'tenders_session';
/** How long a browser stays signed in (30 days), unless the token changes first. */
const SESSION_SECONDS = 30 * 24 * 3600;
/** The page's own (GET, HEAD) paths and a sync's files: the cookie opens no API and no write. */
const API_PREFIX = '/api/';

function sessionValue(token: string): string {
  return createHmac('sha256', token).update('tenders page session').digest('base64url');
}

/** The cookie's value in a Cookie header, if any. */
function cookieOf(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE) return value.join('=');
  }
  return undefined;
}

/** Whether a request carries the sign-in cookie of `token` (compared in constant time), for GET or HEAD of a page or a sync's file. */
export function sessionAdmits(token: string, method: string | undefined, path: string, cookieHeader: string | undefined): boolean {
  const given = cookieOf(cookieHeader);
  if (given === undefined || (method !== 'GET' && method !== 'HEAD') || path.startsWith(API_PREFIX)) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(sessionValue(token));
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A path of this server to go on to after signing in: a local path only (never `//host` or another origin), else `/`. */
function localTarget(next: string | null): string {
  if (next === null || !/^\/(?![/\\])/.test(next)) return '/';
  const url = new URL(next, 'http://here.invalid');
  return url.origin === 'http://here.invalid' ? `${url.pathname}${url.search}` : '/';
}

export interface SignInRequest {
  method: string;
  path: string;
  /** The path and query asked for, where a signed-in browser goes on to. */
  target: string;
  /** https when the browser came over https (a proxy's X-Forwarded-Proto): the cookie is then Secure. */
  https: boolean;
  /** The request's body (the sign-in form), read only for a POST of the form. */
  form(): Promise<string>;
}

/**
 * The answer to a request without the token that a browser made: the sign-in
 * page for a page asked for (401) or for itself, the cookie and a redirect to
 * the page for the right token typed (303), the form again for a wrong one
 * (401). Undefined for any other request, which gets the API's 401.
 */
export async function signIn(request: SignInRequest, token: string): Promise<WebResponse | undefined> {
  const refused = (status: number, next: string, wrong: boolean): WebResponse => {
    const page = signInAnswer(status, next, wrong);
    return status === 401 ? { ...page, headers: { ...page.headers, 'WWW-Authenticate': 'Bearer' } } : page;
  };
  if (request.path === SIGN_IN_PATH && request.method === 'POST') {
    const form = new URLSearchParams(await request.form());
    const next = localTarget(form.get('next'));
    if (!tokenMatches(form.get('token') ?? '', token)) return refused(401, next, true);
    const cookie = `${SESSION_COOKIE}=${sessionValue(token)}; Path=/; Max-Age=${SESSION_SECONDS}; HttpOnly; SameSite=Strict${request.https ? '; Secure' : ''}`;
    return { status: 303, headers: { Location: next, 'Set-Cookie': cookie, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' }, body: '' };
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
  if (request.path === SIGN_IN_PATH) return refused(200, localTarget(new URLSearchParams(request.target.split('?')[1] ?? '').get('next')), false);
  return isPagePath(request.path) ? refused(401, localTarget(request.target), false) : undefined;
}
