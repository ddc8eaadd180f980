import type { Client } from '../../api/client.js';
import { ServiceError } from '../../api/errors.js';
import { RETRY_STATUSES } from '../../api/retry-policy.js';
import { RunError } from '../../errors.js';
import { stringifyJson } from '../../model/exact-json.js';
import type { ChangeKind } from '../../store/store.js';
import type { WatchChange } from './watch-changes.js';
import type { SavedQuery } from '../../model/saved-search.js';
import type { Webhook } from './webhook-url.js';

/** Changes named in `text` at most; the rest are counted ("and 12 more"). */
export const TEXT_ITEMS = 10;
/** A title in `text` is cut to this many characters. */
const TEXT_TITLE_CHARS = 80;

/** What a run posts: the counts by kind and the first changes (the document is bounded). */
export interface WebhookRun {
  watch: string;
  query: SavedQuery;
  /** When the run ran, and the run its changes are since. */
  at: string;
  since: string;
  counts: Record<ChangeKind, number>;
  /** The first changes, at most --webhook-changes of them (and at least the TEXT_ITEMS the text names). */
  first: readonly WatchChange[];
  /** How many `changes` holds (--webhook-changes). */
  max: number;
}

/**
 * The JSON document of a run with changes: `text` is what Slack, Mattermost
 * and Teams incoming webhooks show; `changes` the first --webhook-changes
 * changes, `truncated` when there were more.
 */
export function webhookDocument(run: WebhookRun): string {
  const total = run.counts.new + run.counts.changed + run.counts.gone;
  const changes = run.first.slice(0, run.max);
  return stringifyJson({
    watch: run.watch,
    query: run.query,
    run: { at: run.at, since: run.since, new: run.counts.new, changed: run.counts.changed, gone: run.counts.gone },
    changes,
    truncated: changes.length < total,
    total,
    text: webhookText(run),
  });
}

/**
 * One paragraph: "watch deu-open: 3 new, 1 changed, 0 gone. New: T-1 Title
 * (Buyer, deadline 2026-12-01); … and 4 more." Angle brackets become ‹ ›, so
 * a hostile title cannot be a Slack control sequence (<!channel>, <url|link>).
 */
export function webhookText(run: WebhookRun): string {
  const { counts } = run;
  const total = counts.new + counts.changed + counts.gone;
  const head = `watch ${run.watch}: ${counts.new} new, ${counts.changed} changed, ${counts.gone} gone.`;
  const named = run.first.slice(0, TEXT_ITEMS);
  const groups: string[] = [];
  for (const kind of ['new', 'changed', 'gone'] as const) {
    const items = named.filter((c) => c.change === kind).map(describeChange);
    if (items.length) groups.push(`${KIND_NAMES[kind]}: ${items.join('; ')}.`);
  }
  const more = total - named.length;
  return [head, ...groups, ...(more > 0 ? [`And ${more} more.`] : [])].join(' ');
}

const KIND_NAMES: Record<ChangeKind, string> = { new: 'New', changed: 'Changed', gone: 'Gone' };

function describeChange({ change, changedFields, tender }: WatchChange): string {
  const text = (value: unknown) => (typeof value === 'string' ? plain(value) : undefined);
  const title = text(tender.title);
  const chars = title === undefined ? [] : [...title]; // code points: an emoji is never cut in half
  const cut = chars.length > TEXT_TITLE_CHARS ? `${chars.slice(0, TEXT_TITLE_CHARS - 1).join('').trimEnd()}…` : title;
  const buyer = text((tender.buyer as Record<string, unknown> | undefined)?.name);
  const deadline = text(tender.deadline)?.slice(0, 10);
  const facts =
    change === 'changed' ? changedFields.map(plain) : [buyer, deadline && `deadline ${deadline}`].filter((x): x is string => Boolean(x));
  return `${text(tender.id) ?? '(no id)'}${cut ? ` ${cut}` : ''}${facts.length ? ` (${facts.join(', ')})` : ''}`;
}

/** On one line, without control characters or Slack's angle brackets. */
function plain(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, ' ').replace(/</g, '‹').replace(/>/g, '›').trim();
}

/** A webhook that did not take the changes: exit 1, its URL shown without secrets. */
export class WebhookError extends RunError {
  override name = 'WebhookError';
}

/**
 * POSTs the document to each webhook through the project's client (its
 * retries, Retry-After, --max-wait, --timeout), one after the other; every
 * one is tried, and the first failure is thrown when any failed.
 */
export async function deliverWebhooks(
  hooks: readonly Webhook[],
  document: string,
  clientFor: (hook: Webhook) => Promise<Client>,
  signal: AbortSignal,
  delivered: (hook: Webhook, status: number | undefined) => void,
): Promise<void> {
  const failures: string[] = [];
  for (const hook of hooks) {
    const client = await clientFor(hook);
    let ok = false;
    try {
      const { status } = await client.post(hook.url.pathname + hook.url.search, document, signal);
      delivered(hook, status);
      ok = true;
    } catch (err) {
      if (signal.aborted) throw err;
      delivered(hook, undefined);
      failures.push(`webhook ${hook.shown} ${whatFailed(err)}`);
    } finally {
      await client.close(!ok);
    }
  }
  if (failures.length === 0) return;
  const others = failures.length > 1 ? ` (and ${failures.length - 1} more ${failures.length === 2 ? 'webhook' : 'webhooks'})` : '';
  throw new WebhookError(`${failures[0]}${others}; the changes will be delivered again by the next run`);
}

/** What went wrong, said without the request's path (the client names it by `shown`). */
function whatFailed(err: unknown): string {
  // A retried status says how often it was tried; another's body is not repeated (it may echo the URL).
  if (err instanceof ServiceError) return RETRY_STATUSES.includes(err.status) ? `answered ${err.status}: ${err.serviceMessage}` : `answered ${err.status}`;
  return `failed: ${(err as Error).message}`;
}
