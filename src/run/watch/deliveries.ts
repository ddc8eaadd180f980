import type { Client } from '../../api/client.js';
import type { WatchFeedInfo } from '../../output/formats/atom-formatter.js';
import type { ConnectionPlan, WatchPlan } from '../plan.js';
import type { Session } from '../session.js';
import type { ChangeKind } from '../../store/store.js';
import type { WatchChange } from './watch-changes.js';
import { refuseOutputFeed, RollingFeed } from './feed.js';
import type { SavedQuery } from '../../model/saved-search.js';
import { deliverWebhooks, TEXT_ITEMS, webhookDocument } from './webhook.js';
import type { Webhook } from './webhook-url.js';

/** What the receipt says of a run's deliveries. */
export interface DeliveriesReceipt {
  webhooks?: { url: string; status: number | null }[];
  feed?: { file: string; entries: number | null };
}

/**
 * A watch run's deliveries beside its output: the webhooks and the rolling
 * feed. They see the changes as the output does, keep only what they send
 * (the first changes for a webhook, the newest --feed-size entries), and
 * deliver as a commit step, before the state moves.
 */
export class Deliveries {
  readonly #counts: Record<ChangeKind, number> = { new: 0, changed: 0, gone: 0 };
  readonly #first: WatchChange[] = [];
  readonly #keep: number;
  readonly #now = new Date();
  readonly receipt: DeliveriesReceipt = {};

  private constructor(
    private readonly plan: WatchPlan,
    private readonly feed: RollingFeed | undefined,
  ) {
    this.#keep = Math.max(plan.webhookChanges, TEXT_ITEMS);
    if (plan.webhooks.length) this.receipt.webhooks = plan.webhooks.map((hook) => ({ url: hook.shown, status: null }));
    if (feed) this.receipt.feed = { file: feed.file, entries: null };
  }

  /** Reads and locks --feed FILE (a usage error, before any request, when it is not this watch's feed, or is the output). */
  static async open(plan: WatchPlan, session: Session): Promise<Deliveries> {
    if (plan.feed === undefined) return new Deliveries(plan, undefined);
    // Before its lock: the output's lock, which the run holds, would be blamed on another process.
    await refuseOutputFeed(plan.feed, session.target, session.fs);
    await session.lock(plan.feed, `--feed ${plan.feed}`);
    return new Deliveries(plan, await RollingFeed.open(plan.feed, plan.name, plan.feedSize, session.fs));
  }

  add(changes: readonly WatchChange[], watch: WatchFeedInfo): void {
    for (const change of changes) {
      this.#counts[change.change]++;
      if (this.plan.webhooks.length && this.#first.length < this.#keep) this.#first.push(change);
    }
    this.feed?.add(changes, watch, this.#now, this.plan.output.cpvPaths);
  }

  /** The feed written, then each webhook posted; a failure leaves the state where it was. */
  async deliver(session: Session, query: SavedQuery, since: string): Promise<void> {
    if (this.feed) {
      await this.feed.commit(this.#now);
      this.receipt.feed!.entries = this.feed.written ?? null;
    }
    const total = this.#counts.new + this.#counts.changed + this.#counts.gone;
    if (total === 0 || this.plan.webhooks.length === 0) return;
    const document = webhookDocument({
      watch: this.plan.name,
      query,
      at: this.#now.toISOString(),
      since,
      counts: this.#counts,
      first: this.#first,
      max: this.plan.webhookChanges,
    });
    const log = session.say.verbose ? session.say.debug : undefined;
    await deliverWebhooks(this.plan.webhooks, document, (hook) => webhookClient(hook, this.plan.connection, session, log), session.signal, (hook, status) => {
      const row = this.receipt.webhooks!.find((r) => r.url === hook.shown && r.status === null);
      if (row) row.status = status ?? null;
    });
    session.say.debug(`${this.plan.webhooks.length === 1 ? 'webhook' : `${this.plan.webhooks.length} webhooks`} delivered: ${total} changes`);
  }
}

/** The project's client for one webhook: the run's retries and timeouts, the URL's path never printed. */
async function webhookClient(hook: Webhook, connection: ConnectionPlan, session: Session, log?: (line: string) => void): Promise<Client> {
  const { ApiClient } = await import('../../api/client.js');
  const { username, password } = hook.url;
  const headers: Record<string, string> = username || password
    ? { authorization: `Basic ${Buffer.from(`${decodeURIComponent(username)}:${decodeURIComponent(password)}`).toString('base64')}` }
    : {};
  return new ApiClient({
    baseUrl: new URL(hook.url.origin),
    timeoutMs: connection.timeoutMs,
    retries: connection.retries,
    maxWaitMs: connection.maxWaitMs,
    env: session.io.env,
    log,
    name: hook.shown,
    peer: 'the webhook',
    answer: 'any',
    headers,
  });
}
