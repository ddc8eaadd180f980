import { createHash } from 'node:crypto';
import { createFormatter, joinChunks } from '../output/formatter.js';
import type { Html } from './html.js';
import { html } from './html.js';
import { layout } from './layout.js';
import { changesPage } from './pages/changes-page.js';
import { searchPage } from './pages/search-page.js';
import { syncsPage } from './pages/syncs-page.js';
import { tenderPage } from './pages/tender-page.js';
import { PAGE_CSS } from './static/page-css.js';
import { PAGE_SCRIPT } from './static/page-js.js';
import { servedSyncs } from './served-syncs.js';
import { readTenderStory } from './tender-lookup.js';
import type { WebDeps, WebRequest, WebResponse } from './web-request.js';

/**
 * The page's own answers: nothing may run or load but the page's script and
 * stylesheet from this origin; no inline script or style, no frames, no
 * plugins, forms post only here.
 */
export const CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};

/** The static files, their content type and an ETag of their bytes. */
const STATIC: Readonly<Record<string, { type: string; body: string; etag: string }>> = Object.fromEntries(
  [
    ['/static/page.css', 'text/css; charset=utf-8', PAGE_CSS],
    ['/static/page.js', 'text/javascript; charset=utf-8', PAGE_SCRIPT],
  ].map(([path, type, body]) => [path!, { type: type!, body: body!, etag: `"${createHash('sha256').update(body!).digest('base64url').slice(0, 16)}"` }]),
);

const TENDER = /^\/tenders\/([^/]+?)(\.ics)?$/;

/**
 * The page layer's one entry: the answer to a request for one of its pages
 * (`/`, `/tenders/{id}`, `/tenders/{id}.ics`, `/changes`, `/syncs`,
 * `/static/…`), or undefined for any other path, which the mounting HTTP
 * layer answers itself (the API, downloads under /syncs/{name}/, health).
 * Errors of the copy (unreadable, gone) are thrown to that layer.
 */
export async function handleWebRequest(request: WebRequest, deps: WebDeps): Promise<WebResponse | undefined> {
  const route = routeOf(request.path);
  if (route === undefined) return undefined;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return { status: 405, headers: { ...PAGE_HEADERS, Allow: 'GET, HEAD' }, body: page(405, 'Method not allowed', html`<p>This page answers GET (and HEAD) only.</p>`, request) };
  }
  const answer = await route(request, deps);
  return request.method === 'HEAD' ? { ...answer, body: '' } : answer;
}

type Route = (request: WebRequest, deps: WebDeps) => Promise<WebResponse>;

/** Whether `path` is one of the page's (handleWebRequest answers it), known without reading anything. */
export function isPagePath(path: string): boolean {
  return routeOf(path) !== undefined;
}

function routeOf(path: string): Route | undefined {
  if (path === '/') return async (request, deps) => htmlResponse(await searchPage(request, deps));
  if (path === '/changes') return async (request, deps) => htmlResponse(await changesPage(request, deps));
  if (path === '/syncs') return async (_, deps) => htmlResponse({ status: 200, page: syncsPage(await servedSyncs(deps)) });
  const file = STATIC[path];
  if (file !== undefined) {
    return async () => ({ status: 200, headers: { 'Content-Type': file.type, ETag: file.etag, 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' }, body: file.body });
  }
  const match = TENDER.exec(path);
  if (match === null) return undefined;
  return async (request, deps) => {
    const id = decodedId(match[1]!);
    const story = id === undefined ? undefined : await readTenderStory(deps.store, id, deps.syncs);
    if (id === undefined || story === undefined) return htmlResponse({ status: 404, page: notFound(request) });
    if (match[2] !== undefined) return story.tender === undefined ? htmlResponse({ status: 404, page: notFound(request) }) : calendar(id, story.tender);
    return htmlResponse({ status: 200, page: tenderPage(id, story, deps.now()) });
  };
}

function decodedId(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function htmlResponse({ status, page }: { status: number; page: Html }): WebResponse {
  return { status, headers: { ...PAGE_HEADERS }, body: page.toString() };
}

function page(status: number, title: string, message: Html, request: WebRequest): string {
  return layout({ title, main: html`<h1>${title}</h1>${message}<p><a href="/">Search tenders</a></p><p class="hint">(${status}: ${request.path})</p>` }).toString();
}

function notFound(request: WebRequest): Html {
  return layout({ title: 'No such tender', main: html`<h1>No such tender</h1><p>The copy holds no tender at <code>${request.path}</code>.</p><p><a href="/">Search tenders</a></p>` });
}

/** One tender's deadline as an iCalendar file, through the calendar format of `export -f ics`. */
async function calendar(id: string, tender: Record<string, unknown>): Promise<WebResponse> {
  const formatter = await createFormatter('ics', { header: true, headerStyle: 'path', excelSafe: false, color: false });
  const body = joinChunks([formatter.page([tender]), formatter.end()]) as string;
  const name = `tender-${id.replace(/[^\w.-]/g, '_')}.ics`;
  return { status: 200, headers: { 'Content-Type': 'text/calendar; charset=utf-8', 'Content-Disposition': `attachment; filename="${name}"`, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache' }, body };
}
