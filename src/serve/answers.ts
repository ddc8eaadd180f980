import { CursorCodec } from '../contract/cursor.js';
import { errorResponse, type ApiResponse } from '../contract/response.js';
import type { Store } from '../store/store.js';
import { handleWebRequest } from '../web/web-handler.js';
import type { WebRequest, WebResponse } from '../web/web-request.js';
import { ChangesSearch } from './changes-search.js';
import { searchOrganisations } from './organisations.js';
import { leasedStore } from './store-calls.js';
import { keyParameter } from './subscription-keys.js';
import { listSyncs } from './syncs-list.js';
import { TenderSearch } from './tender-search.js';
import { tenderStory } from './tender-story.js';

/** What every answer is made with besides the copy: plain values, so that a reading thread gets them too (answer-pool.ts). */
export interface AnswerContext {
  /** Signs cursors. */
  secret: string;
  /** Subscription URLs carry keys derived from it (`?key=`). */
  token?: string;
  /** Serve only these syncs (`--sync`); all when absent. */
  syncs?: string[];
}

/**
 * The answers of `tenders serve` that read the copy, each as a whole: the
 * server reads the request (its method, type and body) and asks one of these.
 * The page layer's answers are `page`; downloads stream, and are not here.
 */
export interface Answers {
  tenders(body: unknown, orgId?: string): Promise<ApiResponse>;
  organisations(body: unknown): Promise<ApiResponse>;
  changes(body: unknown): Promise<ApiResponse>;
  story(id: string): Promise<ApiResponse>;
  /** `GET /api/v1/syncs`; `origin` where the client reached the server (origin.ts). */
  syncs(origin: string | undefined): Promise<ApiResponse>;
  ready(): Promise<ApiResponse>;
  page(request: WebRequest): Promise<WebResponse | undefined>;
  close(): Promise<void>;
}

/**
 * The answers read from `store` in this thread, each request's reads in one
 * snapshot (Store.snapshot: one read transaction), taken at its first read and
 * ended with its answer: a page and its total, a tender and its history, agree
 * whatever a sync commits meanwhile.
 */
export class StoreAnswers implements Answers {
  readonly #codec: CursorCodec;

  constructor(
    private readonly store: Store,
    private readonly context: AnswerContext,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.#codec = new CursorCodec(context.secret);
  }

  tenders(body: unknown, orgId?: string): Promise<ApiResponse> {
    return this.#read((store) => new TenderSearch(store, this.#codec, this.context.syncs, this.now).answer(body, orgId));
  }

  organisations(body: unknown): Promise<ApiResponse> {
    return this.#read((store) => searchOrganisations(store, this.#codec, body, this.context.syncs));
  }

  changes(body: unknown): Promise<ApiResponse> {
    return this.#read((store) => new ChangesSearch(store, this.#codec, this.context.syncs, this.now).answer(body));
  }

  story(id: string): Promise<ApiResponse> {
    return this.#read((store) => tenderStory(store, id, this.context.syncs));
  }

  syncs(origin: string | undefined): Promise<ApiResponse> {
    return this.#read((store) => listSyncs(store, { origin, token: this.context.token, syncs: this.context.syncs }));
  }

  /** Ready when the copy answers: its syncs and how old each is. */
  async ready(): Promise<ApiResponse> {
    try {
      const scope = this.context.syncs;
      const syncs = (await this.#read((store) => store.listSyncs())).filter((s) => scope === undefined || scope.includes(s.name));
      const now = this.now().getTime();
      const ages = syncs.map((s) => ({ name: s.name, lastComplete: s.lastComplete, ageSeconds: Math.round((now - Date.parse(s.lastComplete)) / 1000) }));
      return { status: 200, body: JSON.stringify({ status: 'ready', syncs: ages }) };
    } catch {
      return errorResponse(503, 'the local copy cannot be read', { 'retry-after': '5' });
    }
  }

  page(request: WebRequest): Promise<WebResponse | undefined> {
    // The page's links to a sync's files carry their keys when a token protects the server (docs/web.md).
    const fileKey = this.context.token === undefined ? undefined : keyParameter(this.context.token);
    return this.#read((store) => handleWebRequest(request, { store, syncs: this.context.syncs, now: this.now, fileKey }));
  }

  async close(): Promise<void> {}

  /** `work` on a store whose reads are one snapshot, taken at the first (an answer that reads nothing takes none) and ended after the last. */
  async #read<T>(work: (store: Store) => Promise<T>): Promise<T> {
    let snapshot: Promise<Store> | undefined;
    const store = leasedStore(this.store, async () => ({
      store: await (snapshot ??= this.store.snapshot()),
      check: () => undefined,
      fail: (err) => err as Error,
      done: () => undefined,
    }));
    try {
      return await work(store);
    } finally {
      await snapshot?.then((s) => s.close(), () => undefined);
    }
  }
}
