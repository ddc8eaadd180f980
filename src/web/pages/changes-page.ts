import { UsageError } from '../../errors.js';
import { formatCounted } from '../../model/numbers.js';
import { parseInstant } from '../../query/local-values.js';
import type { KeyedChange } from '../../store/store.js';
import { scopedSyncs } from '../../store/sync-scope.js';
import { decodeChangesCursor, encodeChangesCursor } from '../changes-cursor.js';
import { data, html, type Html } from '../html.js';
import { layout } from '../layout.js';
import { syncFilePath, tenderPath } from '../links.js';
import { servedSyncs } from '../served-syncs.js';
import type { WebDeps, WebRequest } from '../web-request.js';
import { changeText } from './tender-page.js';

/** The view's start unless the URL's `since` says: a week back. */
const DEFAULT_SINCE = '7d';
/** The choices offered as links; any date or duration of `search --local` may be typed. */
const PRESETS = [
  ['today', 'Today'],
  ['7d', '7 days'],
  ['30d', '30 days'],
] as const;
/** Changes per page, the newest first; "Older" goes on by cursor. */
export const CHANGES_PER_PAGE = 200;

/** A page of changes: newest first, how many the view holds in all, and the cursor of the older ones. */
interface ChangesShown {
  changes: KeyedChange[];
  total: number;
  older?: string;
}

/**
 * `/changes`: new, changed and gone tenders since a date, of one sync or all,
 * grouped by day, newest first, a page at a time (keyset paging by `cursor`,
 * as the API's changes/search pages them), with how many there are in all
 * and the Atom feed of a sync's changes.
 */
export async function changesPage(request: WebRequest, deps: WebDeps): Promise<{ status: number; page: Html }> {
  const since = request.query.get('since')?.trim() || DEFAULT_SINCE;
  const sync = request.query.get('sync')?.trim() || undefined;
  const syncs = (await servedSyncs(deps)).map((info) => info.name);
  const cursor = request.query.get('cursor') || undefined;
  let error: string | undefined;
  let shown: ChangesShown | undefined;
  try {
    if (sync !== undefined && !syncs.includes(sync)) throw new UsageError(`sync: the copy has no sync named '${sync}'`);
    const from = parseInstant('since', since, deps.now(), 'start');
    const before = cursor === undefined ? undefined : decodeChangesCursor(cursor);
    // The change search of the API (changes/search): a page and one more (is there an older one?), and the count, in one snapshot.
    const found = await deps.store.searchChanges({ since: from, syncs: scopedSyncs(deps.syncs, sync) }, { limit: CHANGES_PER_PAGE + 1, before, count: true });
    const changes = found.changes.slice(0, CHANGES_PER_PAGE);
    shown = { changes, total: found.total ?? changes.length };
    if (found.changes.length > CHANGES_PER_PAGE) shown.older = encodeChangesCursor(changes.at(-1)!);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    error = err.message;
  }
  const feed = sync !== undefined ? syncFilePath(sync, 'changes.atom', undefined, deps.fileKey) : undefined;
  const main = html`<h1>Changes</h1>
<form method="get" action="/changes" class="changes-form" aria-label="Which changes">
<div class="field"><label for="c-since">Since</label><input type="text" id="c-since" name="since" value="${since}" aria-describedby="c-since-hint"><small class="hint" id="c-since-hint">today, 7d, 30d, or a date such as 2026-03-01</small></div>
<div class="field"><label for="c-sync">Sync</label><select id="c-sync" name="sync"><option value="">All syncs</option>${syncs.map((name) => html`<option${name === sync ? html` selected` : false}>${name}</option>`)}</select></div>
<p><button type="submit">Show</button></p>
</form>
<p class="presets">Since: ${PRESETS.map(([value, label], i) => html`${i > 0 ? ' · ' : ''}<a href="/changes?${new URLSearchParams(sync ? { since: value, sync } : { since: value }).toString()}"${value === since ? html` aria-current="true"` : false}>${label}</a>`)}</p>
${feed !== undefined ? html`<p><a href="${feed}">Atom feed of the changes of ${sync}</a></p>` : false}
${error !== undefined || shown === undefined ? html`<p class="error" role="alert"><strong>Cannot show changes:</strong> ${error}</p>` : html`${byDay(shown, cursor !== undefined)}${pager(shown, since, sync, cursor !== undefined)}`}`;
  const head = feed !== undefined ? html`<link rel="alternate" type="application/atom+xml" title="Changes of ${sync}" href="${feed}">` : undefined;
  return { status: error === undefined ? 200 : 400, page: layout({ title: 'Changes', current: '/changes', head, main }) };
}

/** How many changes the view holds, and which of them this page shows. */
function countText(shown: ChangesShown, later: boolean): Html {
  const all = formatCounted(shown.total, 'changes');
  if (!later && shown.older === undefined) return html`${all}.`;
  const last = shown.changes.at(-1);
  const range = last === undefined ? 'none left on this page' : html`${shown.changes.length} here, back to <time datetime="${last.at}">${last.at.slice(0, 16).replace('T', ' ')} UTC</time>`;
  return html`${all} in all, newest first: ${range}${shown.older !== undefined ? '; older ones on the next page' : ''}.`;
}

function byDay(shown: ChangesShown, later: boolean): Html {
  if (shown.changes.length === 0 && !later) return html`<p role="status">No change in this time.</p>`;
  const days = new Map<string, KeyedChange[]>();
  for (const change of shown.changes) {
    const day = change.at.slice(0, 10);
    days.set(day, [...(days.get(day) ?? []), change]);
  }
  return html`<p role="status">${countText(shown, later)}</p>
${[...days.entries()].map(
  ([day, list]) => html`<section class="day" aria-labelledby="day-${day}">
<h2 id="day-${day}"><time datetime="${day}">${day}</time></h2>
<ul class="changes">${list.map(
    (change) => html`<li><time datetime="${change.at}">${change.at.slice(11, 16)}</time> <a href="${tenderPath(change.id)}">${data(change.id)}</a> ${changeText(change)} <span class="sync">(sync ${data(change.sync)})</span></li>`,
  )}</ul>
</section>`,
)}`;
}

/** "Older" by cursor; back to the newest from a later page (the back button goes one page back). */
function pager(shown: ChangesShown, since: string, sync: string | undefined, later: boolean): Html | false {
  if (shown.older === undefined && !later) return false;
  const href = (cursor?: string) => `/changes?${new URLSearchParams({ since, ...(sync !== undefined ? { sync } : {}), ...(cursor !== undefined ? { cursor } : {}) }).toString()}`;
  return html`<nav class="pager" aria-label="Change pages"><ul>
${later ? html`<li><a href="${href()}">← Newest</a></li>` : false}
${shown.older !== undefined ? html`<li><a rel="next" href="${href(shown.older)}">Older →</a></li>` : false}
</ul></nav>`;
}
