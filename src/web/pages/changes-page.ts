import { UsageError } from '../../errors.js';
import { formatCounted } from '../../model/numbers.js';
import { parseInstant } from '../../query/local-values.js';
import type { ChangeRecord } from '../../store/store.js';
import { scopedSyncs } from '../../store/sync-scope.js';
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
/** Changes shown at most, the newest: a page stays quick to read and to render; a later date narrows it. */
export const CHANGES_SHOWN = 1000;

/**
 * `/changes`: new, changed and gone tenders since a date, of one sync or all,
 * grouped by day (newest day first, a day's changes as they were recorded),
 * with the Atom feed of a sync's changes.
 */
export async function changesPage(request: WebRequest, deps: WebDeps): Promise<{ status: number; page: Html }> {
  const since = request.query.get('since')?.trim() || DEFAULT_SINCE;
  const sync = request.query.get('sync')?.trim() || undefined;
  const syncs = (await servedSyncs(deps)).map((info) => info.name);
  let error: string | undefined;
  let changes: ChangeRecord[] = [];
  let more = false;
  try {
    if (sync !== undefined && !syncs.includes(sync)) throw new UsageError(`sync: the copy has no sync named '${sync}'`);
    const from = parseInstant('since', since, deps.now(), 'start');
    // The change search of the API (changes/search), newest first; shown oldest first within a day.
    const found = (await deps.store.searchChanges({ since: from, syncs: scopedSyncs(deps.syncs, sync) }, { limit: CHANGES_SHOWN + 1 })).changes;
    more = found.length > CHANGES_SHOWN;
    changes = found.slice(0, CHANGES_SHOWN).reverse();
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
${error !== undefined ? html`<p class="error" role="alert"><strong>Cannot show changes:</strong> ${error}</p>` : byDay(changes, more)}`;
  const head = feed !== undefined ? html`<link rel="alternate" type="application/atom+xml" title="Changes of ${sync}" href="${feed}">` : undefined;
  return { status: error === undefined ? 200 : 400, page: layout({ title: 'Changes', current: '/changes', head, main }) };
}

function byDay(changes: readonly ChangeRecord[], more: boolean): Html {
  if (changes.length === 0) return html`<p role="status">No change in this time.</p>`;
  const days = new Map<string, ChangeRecord[]>();
  for (const change of changes) {
    const day = change.at.slice(0, 10);
    days.set(day, [...(days.get(day) ?? []), change]);
  }
  return html`<p role="status">${formatCounted(changes.length, 'changes')}${more ? html`, the newest ${CHANGES_SHOWN} shown: a later date or one sync narrows them` : false}.</p>
${[...days.entries()].reverse().map(
  ([day, list]) => html`<section class="day" aria-labelledby="day-${day}">
<h2 id="day-${day}"><time datetime="${day}">${day}</time></h2>
<ul class="changes">${list.map(
    (change) => html`<li><time datetime="${change.at}">${change.at.slice(11, 16)}</time> <a href="${tenderPath(change.id)}">${data(change.id)}</a> ${changeText(change)} <span class="sync">(sync ${data(change.sync)})</span></li>`,
  )}</ul>
</section>`,
)}`;
}
