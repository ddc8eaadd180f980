import { CursorCodec, queryFingerprint, type Position } from './cursor.js';
import { BadRequest, parseOrgQuery, parseTenderQuery } from './request.js';
import { DRIFT_FIELD, EXOTIC_FIELDS, isExotic, missort, withRawFields } from './faults.js';
import { orgMatcher, sortKey, tenderMatcher, type Row, type Store, type Total } from './store.js';

export const TENDERS_PATH = '/api/v1/tenders/search';
export const ORGS_PATH = '/api/v1/organisations/search';
const ORG_TENDERS = /^\/api\/v1\/organisations\/([^/]+)\/tenders\/search$/;

export interface ApiResponse {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** How to render a page: the faults that change a page rather than replace it. */
export interface RenderOptions {
  /** Tender results under this key instead of "tenders". */
  resultsKey?: string;
  /** Start each cursor page with the previous page's last tender. */
  repeatOverlap?: boolean;
  /** Send this as page.nextCursor instead of the real one (a cursor cycle). */
  nextCursor?: string;
  /** Give every tenth tender the raw JSON fields of EXOTIC_FIELDS. */
  exoticFields?: boolean;
  /** Give every tender the DRIFT_FIELD it did not have before. */
  drift?: boolean;
  /** Put each page out of the requested order. */
  missort?: boolean;
}

/** An error answer: the service's error bodies are `{"message": ...}`. */
export const errorResponse = (status: number, message: string, headers?: Record<string, string>): ApiResponse => ({
  status,
  body: JSON.stringify({ message }),
  headers,
});

function pageBody(key: string, items: string[], next: string | null, total: Total | null): string {
  return `{"${key}":[${items.join(',')}],"page":${JSON.stringify({ nextCursor: next, total })}}`;
}

/** The organisation id in an Organisation Tenders path, as sent when it does not decode. */
function orgIdOf(path: string): string {
  const id = ORG_TENDERS.exec(path)![1]!;
  try {
    return decodeURIComponent(id);
  } catch {
    return id;
  }
}

/** The three search operations of the spec, over a store. */
export class Routes {
  readonly #codec: CursorCodec;

  constructor(
    private readonly store: Store,
    secret: string,
  ) {
    this.#codec = new CursorCodec(secret);
  }

  /** Which operation a path names, or undefined (404). */
  static known(path: string): boolean {
    return path === TENDERS_PATH || path === ORGS_PATH || ORG_TENDERS.test(path);
  }

  handle(path: string, body: unknown, render: RenderOptions = {}): ApiResponse {
    try {
      if (path === TENDERS_PATH) return this.#tenders(body, undefined, render);
      if (path === ORGS_PATH) return this.#orgs(body, render);
      const orgId = orgIdOf(path);
      if (!this.store.org(orgId)) return errorResponse(404, `organisation not found: ${orgId}`);
      return this.#tenders(body, orgId, render);
    } catch (err) {
      if (err instanceof BadRequest) return errorResponse(400, err.message);
      throw err;
    }
  }

  /** Every result of a query in walk order, ignoring limit and cursor (for tests). */
  truth(path: string, body: unknown): unknown[] {
    if (!Routes.known(path)) throw new Error(`not a search path: ${path}`);
    if (path === ORGS_PATH) return this.store.orgTruth(orgMatcher(parseOrgQuery(body).filters)).map((o) => ({ ...o }));
    const orgId = path === TENDERS_PATH ? undefined : orgIdOf(path);
    const q = parseTenderQuery(body);
    return this.store.truth(q.sortBy, q.sortOrder, tenderMatcher(q.filters, orgId)).map((t) => JSON.parse(JSON.stringify(t)) as unknown);
  }

  #position(cursor: string | undefined, fingerprint: string): Position | undefined {
    if (cursor === undefined) return undefined;
    const position = this.#codec.decode(cursor, fingerprint);
    if (!position) throw new BadRequest('invalid cursor');
    return position;
  }

  #tenders(body: unknown, orgId: string | undefined, render: RenderOptions): ApiResponse {
    const q = parseTenderQuery(body);
    const fingerprint = queryFingerprint({ op: 'tenders', orgId, sortBy: q.sortBy, sortOrder: q.sortOrder, ...q.filters });
    const after = this.#position(q.cursor, fingerprint);
    const match = tenderMatcher(q.filters, orgId);
    const { rows, next } = this.store.page(q.sortBy, q.sortOrder, match, q.limit, after);
    if (render.repeatOverlap && after) {
      const previous = this.store.row(after.id);
      if (previous) rows.unshift(previous);
    }
    if (render.missort) missort(rows, (r) => sortKey(r.tender, q.sortBy));
    const items = rows.map((r) => this.#json(r, render));
    const total = after ? null : this.store.count(fingerprint, q.sortBy, match);
    const nextCursor = render.nextCursor ?? (next && this.#codec.encode(next, fingerprint));
    return { status: 200, body: pageBody(render.resultsKey ?? 'tenders', items, nextCursor, total) };
  }

  /** A tender's JSON text, with the raw fields of the faults that add some. */
  #json(row: Row, render: RenderOptions): string {
    let json = row.json;
    if (render.exoticFields && isExotic(row.tender.id)) json = withRawFields(json, EXOTIC_FIELDS);
    if (render.drift) json = withRawFields(json, DRIFT_FIELD);
    return json;
  }

  #orgs(body: unknown, render: RenderOptions): ApiResponse {
    const q = parseOrgQuery(body);
    const fingerprint = queryFingerprint({ op: 'organisations', ...q.filters });
    const after = this.#position(q.cursor, fingerprint);
    const match = orgMatcher(q.filters);
    const { orgs, next } = this.store.orgPage(match, q.limit, after);
    if (render.missort) missort(orgs, (o) => o.name);
    const total = after ? null : this.store.orgCount(match);
    const items = orgs.map((o) => JSON.stringify(o));
    const nextCursor = render.nextCursor ?? (next && this.#codec.encode(next, fingerprint));
    return { status: 200, body: pageBody('organisations', items, nextCursor, total) };
  }
}
