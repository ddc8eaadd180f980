import { type CursorCodec, cursorPosition, queryFingerprint } from '../contract/cursor.js';
import { cappedTotal, pageBody } from '../contract/page.js';
import { asObject, paging } from '../contract/request.js';
import { BadRequest, type ApiResponse } from '../contract/response.js';
import { stringifyExact } from '../model/exact-json.js';
import { parseInstant } from '../query/local-values.js';
import type { ChangeKind, ChangeSearch, Store } from '../store/store.js';
import { scopedSyncs } from '../store/sync-scope.js';
import { changeEntry } from './tender-story.js';

export const CHANGES_PATH = '/api/v1/changes/search';

const FIELDS = ['limit', 'cursor', 'since', 'kind', 'sync', 'tenderId'];
const KINDS: readonly ChangeKind[] = ['new', 'changed', 'gone'];

function text(value: unknown, field: string): string | undefined {
  if (value !== undefined && typeof value !== 'string') throw new BadRequest(`${field} must be a string`);
  return value;
}

function kinds(value: unknown): ChangeKind[] | undefined {
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0 || !list.every((k) => KINDS.includes(k as ChangeKind))) throw new BadRequest('kind must be new, changed or gone, or a list of them');
  return [...new Set(list as ChangeKind[])];
}

/**
 * `POST /api/v1/changes/search`: the copy's history newest first, paged by
 * cursors as the searches are (bound to the request's filters), filtered by
 * `since` (the dates `tenders changes --since` takes), `kind`, `sync` and
 * `tenderId`. A cursor holds the last change's time and row key (a keyset):
 * a sync committing while a client pages adds changes before the first page,
 * never between pages, so none comes twice and none is skipped.
 */
export class ChangesSearch {
  constructor(
    private readonly store: Store,
    private readonly codec: CursorCodec,
    /** The syncs served (`--sync`); all when undefined. */
    private readonly scope?: readonly string[],
    private readonly now: () => Date = () => new Date(),
  ) {}

  async answer(body: unknown): Promise<ApiResponse> {
    const record = asObject(body, FIELDS);
    const { limit, cursor } = paging(record);
    const since = text(record.since, 'since');
    const sync = text(record.sync, 'sync');
    const tenderId = text(record.tenderId, 'tenderId');
    const kind = kinds(record.kind);
    // Bound to `since` as sent: `7d` stays the same query from page to page.
    const fingerprint = queryFingerprint({ op: 'changes', since, kind, sync, tenderId });
    const from = cursorPosition(this.codec, cursor, fingerprint);
    if (from && (typeof from.key !== 'string' || !/^\d+$/.test(from.id))) throw new BadRequest('invalid cursor');
    const search: ChangeSearch = {
      syncs: scopedSyncs(this.scope, sync),
      since: since === undefined ? undefined : parseInstant('since', since, this.now(), 'start'),
      kinds: kind,
      id: tenderId,
    };
    const before = from && { at: from.key as string, seq: Number(from.id) };
    const page = await this.store.searchChanges(search, { limit: limit + 1, before, count: from === undefined });
    const more = page.changes.length > limit;
    const changes = page.changes.slice(0, limit);
    const last = changes.at(-1);
    const next = more && last ? this.codec.encode({ key: last.at, id: String(last.seq) }, fingerprint) : null;
    const items = changes.map((c) => stringifyExact({ ...changeEntry(c), tenderId: c.id }));
    return { status: 200, body: pageBody('changes', items, next, page.total === undefined ? null : cappedTotal(page.total)) };
  }
}
