import { type CursorCodec, cursorPosition, tenderFingerprint } from '../contract/cursor.js';
import { cappedTotal, pageBody, TOTAL_CAP, type Total } from '../contract/page.js';
import { parseTenderQuery, type TenderQuery } from '../contract/request.js';
import { BadRequest, errorResponse, type ApiResponse } from '../contract/response.js';
import { UsageError } from '../errors.js';
import { stringifyExact } from '../model/exact-json.js';
import type { LocalSelection } from '../model/local-selection.js';
import { API_FIELD_FILTERS } from '../query/tender-filters.js';
import { sortPosition } from '../store/columns.js';
import type { Store } from '../store/store.js';

/** Asks for page.total.exact, the count with no ceiling (opt-in: it costs a count). Not bound to cursors: it is no filter. */
const EXACT_TOTAL = 'exactTotal';
const EXTRA_FIELDS = [...API_FIELD_FILTERS.map((row) => row.apiField!), EXACT_TOTAL];

/**
 * Search Tenders and Organisation Tenders over the copy: the contract's rules
 * (contract/), the copy's tenders through the Store in the service's order,
 * documents as stored. Cursors hold the last tender's sort value and id, so a
 * page after a sync continues where the last one stopped (a keyset, no offset).
 */
export class TenderSearch {
  constructor(
    private readonly store: Store,
    private readonly codec: CursorCodec,
    /** The syncs served (`--sync`): their tenders only; all when undefined. */
    private readonly scope?: readonly string[],
    private readonly now: () => Date = () => new Date(),
  ) {}

  async answer(body: unknown, orgId?: string): Promise<ApiResponse> {
    const q = parseTenderQuery(body, { extraFields: EXTRA_FIELDS });
    const { [EXACT_TOTAL]: exact, ...bound } = q.extra;
    if (exact !== undefined && typeof exact !== 'boolean') throw new BadRequest(`${EXACT_TOTAL} must be true or false`);
    const fingerprint = tenderFingerprint(q, orgId, bound);
    const from = cursorPosition(this.codec, q.cursor, fingerprint);
    if (from && typeof from.key !== (q.sortBy === 'estimatedValue' ? 'number' : 'string')) throw new BadRequest('invalid cursor');
    const selection = this.#selection(q, orgId, bound);
    const tenders: Record<string, unknown>[] = [];
    for await (const batch of this.store.select(selection, { limit: q.limit + 1, from })) tenders.push(...batch);
    const more = tenders.length > q.limit;
    if (more) tenders.pop();
    if (orgId !== undefined && tenders.length === 0 && !(await this.#hasBuyer(orgId))) return errorResponse(404, `organisation not found: ${orgId}`);
    const last = more ? sortPosition(tenders.at(-1)!, q.sortBy) : undefined;
    const next = last ? this.codec.encode(last, fingerprint) : null;
    return { status: 200, body: pageBody('tenders', tenders.map((t) => stringifyExact(t)), next, from ? null : await this.#total(selection, exact === true)) };
  }

  async #total(selection: LocalSelection, exact: boolean): Promise<Total> {
    // The capped total needs to know only whether there are more than the cap: no exact count of a large selection.
    const { total } = await this.store.count(selection, undefined, exact ? {} : { atMost: TOTAL_CAP + 1 });
    return exact ? { ...cappedTotal(total), exact: total } : cappedTotal(total);
  }

  /** An organisation is known when the copy serves a tender of it. */
  async #hasBuyer(orgId: string): Promise<boolean> {
    return (await this.store.count({ buyerIds: [orgId], syncs: this.scope && [...this.scope] }, undefined, { atMost: 1 })).total > 0;
  }

  /** The request as a LocalSelection: the service's fields, then the additive ones through the filter table's rows. */
  #selection(q: TenderQuery, orgId: string | undefined, extra: Record<string, unknown>): LocalSelection {
    const { buyerCountries, statuses, query, minValue, maxValue, cpv } = q.filters;
    if (query !== undefined) throw new BadRequest('query: a replica does not answer it yet; q is its full-text query');
    if (cpv !== undefined) throw new BadRequest('cpv: a replica does not answer it yet');
    const selection: Record<string, unknown> = {
      sortBy: q.sortBy,
      sortOrder: q.sortOrder,
      countries: buyerCountries,
      statuses,
      minValueEur: minValue,
      maxValueEur: maxValue,
      buyerIds: orgId === undefined ? undefined : [orgId],
      syncs: this.scope && [...this.scope],
    };
    for (const row of API_FIELD_FILTERS) {
      const value = extra[row.apiField!];
      if (value === undefined) continue;
      if (typeof value !== 'string' && typeof value !== 'number') throw new BadRequest(`${row.apiField} must be a string or a number`);
      try {
        selection[row.selection!] = row.parse(String(value), this.now());
      } catch (err) {
        if (err instanceof UsageError) throw new BadRequest(err.message.split(row.flag).join(row.apiField!));
        throw err;
      }
    }
    return Object.fromEntries(Object.entries(selection).filter(([, v]) => v !== undefined)) as LocalSelection;
  }
}
