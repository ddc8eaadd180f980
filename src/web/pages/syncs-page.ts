import { formatCount } from '../../model/numbers.js';
import { bodyAsFlags } from '../../query/tender-filters.js';
import type { SyncInfo } from '../../store/store.js';
import { data, html, type Html } from '../html.js';
import { layout } from '../layout.js';
import { searchPath, syncFilePath } from '../links.js';
import type { WebDeps } from '../web-request.js';

/**
 * `/syncs`: the saved searches of the copy: name, query in the flags that
 * make it, when last synced, whether that run completed, how many tenders,
 * and the command that brings it up to date.
 */
export function syncsPage(syncs: readonly SyncInfo[], fileKey?: WebDeps['fileKey']): Html {
  const main = html`<h1>Syncs</h1>
${syncs.length === 0 ? html`<p>The copy has no sync yet: <code>tenders sync NAME -c DEU -s open</code> makes one.</p>` : html`<div class="table-box" role="region" aria-labelledby="syncs-caption" tabindex="0">
<table>
<caption id="syncs-caption">Saved searches of this copy</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Query</th><th scope="col">Last synced</th><th scope="col">Last run</th><th scope="col" class="num">Tenders</th><th scope="col">Refresh with</th><th scope="col">Follow</th></tr></thead>
<tbody>${syncs.map((sync) => row(sync, fileKey))}</tbody>
</table>
</div>`}`;
  return layout({ title: 'Syncs', current: '/syncs', main });
}

function row(sync: SyncInfo, fileKey: WebDeps['fileKey']): Html {
  const flags = bodyAsFlags(sync.query);
  const run = sync.lastRun;
  return html`<tr>
<th scope="row"><a href="${searchPath(new Map([['sync', [sync.name]]]))}">${sync.name}</a></th>
<td>${flags.length > 0 ? html`<code>${data(flags.join(' '))}</code>` : 'every tender'} <small class="hint">from ${data(sync.service)}</small></td>
<td><time datetime="${sync.lastComplete}">${sync.lastComplete.slice(0, 16).replace('T', ' ')} UTC</time></td>
<td>${run.complete ? 'complete' : html`<strong class="warn">incomplete</strong>${run.error !== null ? html`: ${data(run.error)}` : false}`}</td>
<td class="num">${formatCount(sync.tenders)}</td>
<td><code>tenders sync ${sync.name}</code></td>
<td><a href="/changes?${new URLSearchParams({ sync: sync.name }).toString()}">Changes</a> · <a href="${syncFilePath(sync.name, 'deadlines.ics', undefined, fileKey)}">Calendar</a> · <a href="${syncFilePath(sync.name, 'changes.atom', undefined, fileKey)}">Feed</a></td>
</tr>`;
}
