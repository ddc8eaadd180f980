import { UsageError } from '../../errors.js';
import type { LocalSelection } from '../../model/local-selection.js';
import { SORT_DEFAULT_ORDER } from '../../model/local-selection.js';
import { formatCounted } from '../../model/numbers.js';
import { tenderFacts, valueText } from '../../output/formats/tender-facts.js';
import { decodeLocalCursor, encodeLocalCursor } from '../../query/local-cursor.js';
import { scopedSyncs } from '../../store/sync-scope.js';
import { FORM_FIELDS, formSelection, formValues, inFieldNames, LIMIT_FIELD, type FormField, type FormValues } from '../form-fields.js';
import { data, html, type Html } from '../html.js';
import { layout } from '../layout.js';
import { searchPath, syncFilePath, tenderPath, webcalUrl } from '../links.js';
import { firstRows } from '../rows.js';
import { servedSyncs } from '../served-syncs.js';
import type { WebDeps, WebRequest } from '../web-request.js';
import { deadlineCell, when } from '../date-cells.js';

/** Rows per page unless the URL's `limit` says. */
export const PAGE_SIZE = 25;

/** A page of results: its rows, the exact count, and the cursors of the pages around it. */
interface Results {
  rows: Record<string, unknown>[];
  total: number;
  next?: string;
  /** `null`: the previous page is the first one (no cursor); undefined: this is the first page. */
  previous?: string | null;
}

/**
 * `/`: the search form and a page of results. The same selection as
 * `search --local` with the same values, in the same order, counted the same
 * way; pages follow the store's keyset (the cursor of `search --local`), and
 * "Previous" reads the same order backwards from this page's first row.
 */
export async function searchPage(request: WebRequest, deps: WebDeps): Promise<{ status: number; page: Html }> {
  const values = formValues(request.query);
  const cursor = request.query.get('cursor') ?? undefined;
  const limitText = request.query.get(LIMIT_FIELD.body!) ?? undefined;
  const syncs = (await servedSyncs(deps)).map((sync) => sync.name);
  let results: Results | undefined;
  let error: string | undefined;
  let selection: LocalSelection | undefined;
  let size = PAGE_SIZE;
  try {
    size = limitText ? (LIMIT_FIELD.parse(limitText) as number) : PAGE_SIZE;
    // The served syncs (`--sync`) bound the search as they bound the API's.
    const scope = scopedSyncs(deps.syncs);
    selection = scope === undefined ? formSelection(values, deps.now()) : { ...formSelection(values, deps.now()), syncs: scope };
    results = await readResults(deps, selection, size, cursor === undefined || cursor === '' ? undefined : decodeLocalCursor(cursor, selection));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    error = inFieldNames(err.message.replace('--limit', LIMIT_FIELD.body!).replace('--cursor', 'cursor'));
  }
  const extra = { [LIMIT_FIELD.body!]: limitText };
  // A sync's files and feed are linked only for a sync served (another's would be 404s).
  const sync = selection?.sync !== undefined && syncs.includes(selection.sync) ? selection.sync : undefined;
  const main = html`<h1>Search tenders</h1>
${searchForm(values, syncs)}
${error !== undefined ? html`<p class="error" role="alert"><strong>Cannot search:</strong> ${error}</p>` : false}
${results !== undefined ? resultsSection(results, values, extra, deps.now()) : false}
${results === undefined ? false : sync !== undefined ? downloads(sync, values, request.host, deps.fileKey) : html`<p class="hint">Choose a sync to download this selection or subscribe to it.</p>`}`;
  const feed = sync !== undefined ? html`<link rel="alternate" type="application/atom+xml" title="Changes of ${sync}" href="${syncFilePath(sync, 'changes.atom', undefined, deps.fileKey)}">` : undefined;
  return { status: error === undefined ? 200 : 400, page: layout({ title: 'Search', current: '/', head: feed, main }) };
}

async function readResults(deps: WebDeps, selection: LocalSelection, size: number, after: string | undefined): Promise<Results> {
  const [rows, counts] = await Promise.all([firstRows(deps.store.select(selection, { limit: size + 1, after }), size + 1), deps.store.count(selection)]);
  const results: Results = { rows: rows.slice(0, size), total: counts.total };
  if (rows.length > size) results.next = encodeLocalCursor(selection, String(rows[size - 1]!.id));
  if (after !== undefined && rows.length > 0) {
    // The order reversed (ties by id reverse with it): the rows before this page, nearest first.
    const sortBy = selection.sortBy ?? 'publicationDate';
    const forward = selection.sortOrder ?? SORT_DEFAULT_ORDER[sortBy];
    const backwards = { ...selection, sortBy, sortOrder: forward === 'asc' ? 'desc' : 'asc' } as const;
    const before = await firstRows(deps.store.select(backwards, { limit: size + 1, after: String(rows[0]!.id) }), size + 1);
    results.previous = before.length > size ? encodeLocalCursor(selection, String(before[size]!.id)) : null;
  }
  return results;
}

function control(field: FormField, given: readonly string[] | undefined, syncs: readonly string[]): Html {
  const id = `f-${field.name}`;
  const value = given?.join(',') ?? '';
  const common = html`id="${id}" name="${field.name}" aria-describedby="${id}-hint"`;
  const options = field.row.selection === 'sync' ? syncs : field.row.suggest;
  if (options !== undefined) {
    const none = field.row.selection === 'sync' ? 'All syncs' : 'Default';
    return html`<select ${common}><option value="">${none}</option>${options.map(
      (option) => html`<option${option.toLowerCase() === value.toLowerCase() ? html` selected` : false}>${option}</option>`,
    )}</select>`;
  }
  if (field.row.positional) return html`<input type="search" ${common} value="${value}" placeholder="e.g. ${field.row.example}">`;
  return html`<input type="text" ${common} value="${value}" placeholder="e.g. ${field.row.example}" autocomplete="off">`;
}

function fieldBox(field: FormField, values: FormValues, syncs: readonly string[]): Html {
  return html`<div class="field field-${field.name}">
<label for="f-${field.name}">${field.label}</label>
${control(field, values.get(field.name), syncs)}
<small id="f-${field.name}-hint" class="hint">${field.hint}</small>
</div>`;
}

/** A plain GET form: the URL it makes is the page's state, the same with and without the script. */
function searchForm(values: FormValues, syncs: readonly string[]): Html {
  const [words, ...rest] = FORM_FIELDS.filter((f) => f.row.positional || !f.order);
  const order = FORM_FIELDS.filter((f) => f.order);
  return html`<form method="get" action="/" role="search" class="search" aria-label="Search tenders">
<div class="query">${words ? fieldBox(words, values, syncs) : false}<button type="submit">Search</button></div>
<fieldset class="filters"><legend>Filters</legend>
${rest.map((field) => fieldBox(field, values, syncs))}
</fieldset>
<fieldset class="filters"><legend>Sort</legend>
${order.map((field) => fieldBox(field, values, syncs))}
</fieldset>
<p><button type="submit">Search</button> <a href="/">Clear all</a></p>
</form>`;
}

function resultsSection(results: Results, values: FormValues, extra: Record<string, string | undefined>, now: Date): Html {
  return html`<section aria-labelledby="results-title">
<h2 id="results-title">Results</h2>
<p class="count" role="status"><strong>${formatCounted(results.total, 'tenders')}</strong> match${results.total === 1 ? 'es' : ''}.</p>
${results.rows.length > 0 ? resultsTable(results.rows, now) : html`<p>No tender on this page.</p>`}
${pager(results, values, extra)}
</section>`;
}

function resultsTable(rows: readonly Record<string, unknown>[], now: Date): Html {
  return html`<div class="table-box" role="region" aria-labelledby="results-caption" tabindex="0">
<table class="results">
<caption id="results-caption">Tenders of this page</caption>
<thead><tr><th scope="col">Title</th><th scope="col">Buyer</th><th scope="col">Country</th><th scope="col">Published</th><th scope="col">Deadline</th><th scope="col" class="num">Value (EUR)</th></tr></thead>
<tbody>
${rows.map((row) => {
  const t = tenderFacts(row);
  return html`<tr>
<td class="title">${t.id !== undefined ? html`<a href="${tenderPath(t.id)}">${data(t.title ?? t.id)}</a>` : data(t.title)}</td>
<td>${data(t.buyerName)}</td>
<td>${t.country}</td>
<td>${when(t.publicationDate)}</td>
<td>${deadlineCell(t.deadline, now)}</td>
<td class="num">${t.valueEur !== undefined ? valueText(t.valueEur).replace(/ EUR$/, '') : false}</td>
</tr>`;
})}
</tbody>
</table>
</div>`;
}

function pager(results: Results, values: FormValues, extra: Record<string, string | undefined>): Html | false {
  if (results.previous === undefined && results.next === undefined) return false;
  const previous = results.previous === undefined ? undefined : searchPath(values, { ...extra, cursor: results.previous ?? undefined });
  return html`<nav class="pager" aria-label="Result pages"><ul>
${previous !== undefined ? html`<li><a rel="prev" href="${previous}">← Previous</a></li>` : false}
${results.next !== undefined ? html`<li><a rel="next" href="${searchPath(values, { ...extra, cursor: results.next })}">Next →</a></li>` : false}
</ul></nav>`;
}

/** The selection as files of its sync (served by `tenders serve`), and as subscriptions; the feed is of the sync's changes, whatever the selection. */
function downloads(sync: string, values: FormValues, host: string | undefined, fileKey: WebDeps['fileKey']): Html {
  const href = (file: string) => syncFilePath(sync, file, file === 'changes.atom' ? undefined : values, fileKey);
  const files = [
    ['CSV', 'tenders.csv'],
    ['Parquet', 'tenders.parquet'],
    ['NDJSON', 'tenders.ndjson'],
    ['OCDS', 'tenders.ocds.json'],
    ['Calendar (ICS)', 'deadlines.ics'],
    ['Changes of the sync (Atom)', 'changes.atom'],
  ] as const;
  const calendar = webcalUrl(host, href('deadlines.ics'));
  return html`<aside class="downloads" aria-labelledby="downloads-title">
<h2 id="downloads-title">This selection as a file</h2>
<ul>${files.map(([label, file]) => html`<li><a href="${href(file)}" download>${label}</a></li>`)}</ul>
<p>Subscribe: ${calendar !== undefined ? html`<a href="${calendar}">deadlines in your calendar</a>, ` : false}<a href="${href('changes.atom')}">changes of ${sync} in your feed reader</a>.</p>
</aside>`;
}
