import { isObject, RawNumber, stringifyExact } from '../../model/exact-json.js';
import { tenderFacts, valueText } from '../../output/formats/tender-facts.js';
import { webLink } from '../../output/formats/web-link.js';
import type { ChangeRecord } from '../../store/store.js';
import { data, html, type Html } from '../html.js';
import { layout } from '../layout.js';
import { tenderPath } from '../links.js';
import type { TenderStory } from '../tender-lookup.js';
import { deadlineCell, when } from '../date-cells.js';

/**
 * `/tenders/{id}`: one tender, every field readable (nested objects as
 * definition lists), the raw JSON one click away, its history as a timeline,
 * its deadline as a countdown with an "add to calendar" link.
 */
export function tenderPage(id: string, story: TenderStory, now: Date): Html {
  const { tender, history } = story;
  const facts = tender ? tenderFacts(tender) : undefined;
  const link = webLink(facts?.url);
  const main = html`<article aria-labelledby="tender-title">
<p class="crumbs"><a href="/">← Search</a></p>
<h1 id="tender-title">${data(facts?.title ?? id)}</h1>
${tender === undefined ? html`<p class="notice" role="note">The copy no longer holds this tender: it is gone from its sync. Its history is below.</p>` : false}
${facts !== undefined ? html`<dl class="summary">
<dt>Id</dt><dd><code>${id}</code></dd>
<dt>Status</dt><dd>${data(facts.status)}</dd>
<dt>Buyer</dt><dd>${data(facts.buyerName)}${facts.country !== undefined ? html` (${facts.country})` : false}</dd>
<dt>Published</dt><dd>${when(facts.publicationDate)}</dd>
<dt>Deadline</dt><dd>${deadlineCell(facts.deadline, now) ?? 'none'}${facts.deadline !== undefined ? html` · <a href="${tenderPath(id)}.ics" download>Add to calendar</a>` : false}</dd>
<dt>Value</dt><dd>${facts.valueEur !== undefined ? valueText(facts.valueEur) : 'not given'}</dd>
${link !== undefined ? html`<dt>Notice</dt><dd><a href="${link}" rel="noopener noreferrer nofollow">${data(link)}</a></dd>` : false}
</dl>` : false}
<section aria-labelledby="history-title">
<h2 id="history-title">History</h2>
${timeline(history)}
</section>
${tender !== undefined ? html`<section aria-labelledby="fields-title">
<h2 id="fields-title">Every field</h2>
${valueHtml(tender)}
<details class="raw"><summary>Raw JSON</summary><pre><code>${stringifyExact(tender, '  ')}</code></pre></details>
</section>` : false}
</article>`;
  return layout({ title: facts?.title ?? id, main });
}

/** A JSON value for reading: objects as definition lists, arrays as lists, http(s) URLs as links, every text as data. */
function valueHtml(value: unknown): Html {
  if (value instanceof RawNumber) return html`${value.text}`;
  if (Array.isArray(value)) return value.length === 0 ? html`<span class="none">none</span>` : html`<ol class="values">${value.map((item) => html`<li>${valueHtml(item)}</li>`)}</ol>`;
  if (isObject(value)) return html`<dl class="fields">${Object.entries(value).map(([key, item]) => html`<dt>${data(key)}</dt><dd>${valueHtml(item)}</dd>`)}</dl>`;
  if (value === null || value === undefined) return html`<span class="none">none</span>`;
  if (typeof value === 'string') {
    const link = webLink(value);
    return link !== undefined ? html`<a href="${link}" rel="noopener noreferrer nofollow">${data(value)}</a>` : data(value);
  }
  return html`${String(value)}`;
}

/** A field's value in a change: its JSON text, or "absent". */
export function changeValue(value: unknown): Html {
  return value === undefined ? html`<span class="none">absent</span>` : html`<code>${data(stringifyExact(value))}</code>`;
}

/** What one change says: new, gone, or a field's old → new. */
export function changeText(change: ChangeRecord): Html {
  if (change.kind !== 'changed') return html`<span class="kind kind-${change.kind}">${change.kind}</span>`;
  return html`<span class="kind kind-changed">changed</span> <code>${data(change.field ?? '')}</code>: ${changeValue(change.old)} → ${changeValue(change.new)}`;
}

function timeline(history: readonly ChangeRecord[]): Html {
  if (history.length === 0) return html`<p>No change recorded: the tender is as the sync first stored it.</p>`;
  return html`<ol class="timeline">${[...history].reverse().map(
    (change) => html`<li><time datetime="${change.at}">${change.at.slice(0, 16).replace('T', ' ')} UTC</time> ${changeText(change)} <span class="sync">(sync ${data(change.sync)})</span></li>`,
  )}</ol>`;
}
