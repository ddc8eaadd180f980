import { CursorCodec, cursorPosition, orgFingerprint, tenderFingerprint } from '../contract/cursor.js';
import { orgMatcher } from '../contract/organisations.js';
import { pageBody } from '../contract/page.js';
import { orgIdOf, ORGS_PATH, TENDERS_PATH, searchOperation } from '../contract/paths.js';
import { parseOrgQuery, parseTenderQuery, type TenderRules } from '../contract/request.js';
import { BadRequest, errorResponse, type ApiResponse } from '../contract/response.js';
import { STATUSES } from './catalogue.js';
import { DRIFT_FIELD, EXOTIC_FIELDS, isExotic, missort, withRawFields } from './faults.js';
import { sortKey, tenderMatcher, type Row, type Store } from './store.js';

export { ORGS_PATH, TENDERS_PATH };

/** The sandbox's statuses are its catalogue's. */
const RULES: TenderRules = { statuses: STATUSES };

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
    return searchOperation(path) !== undefined;
  }

  handle(path: string, body: unknown, render: RenderOptions = {}): ApiResponse {
    try {
      if (path === TENDERS_PATH) return this.#tenders(body, undefined, render);
      if (path === ORGS_PATH) return this.#orgs(body, render);
      const orgId = orgIdOf(path)!;
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
    const orgId = orgIdOf(path);
    const q = parseTenderQuery(body, RULES);
    return this.store.truth(q.sortBy, q.sortOrder, tenderMatcher(q.filters, orgId)).map((t) => JSON.parse(JSON.stringify(t)) as unknown);
  }

  #tenders(body: unknown, orgId: string | undefined, render: RenderOptions): ApiResponse {
    const q = parseTenderQuery(body, RULES);
    const fingerprint = tenderFingerprint(q, orgId);
    const after = cursorPosition(this.#codec, q.cursor, fingerprint);
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
    const fingerprint = orgFingerprint(q);
    const after = cursorPosition(this.#codec, q.cursor, fingerprint);
    const match = orgMatcher(q.filters);
    const { orgs, next } = this.store.orgPage(match, q.limit, after);
    if (render.missort) missort(orgs, (o) => o.name);
    const total = after ? null : this.store.orgCount(match);
    const items = orgs.map((o) => JSON.stringify(o));
    const nextCursor = render.nextCursor ?? (next && this.#codec.encode(next, fingerprint));
    return { status: 200, body: pageBody('organisations', items, nextCursor, total) };
  }
}
