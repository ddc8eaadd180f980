import { UsageError } from '../errors.js';
import type { LocalSelection } from '../model/local-selection.js';
import type { Format } from '../output/format-registry.js';
import { createFormatter, type Chunk, type FormatOptions } from '../output/formatter.js';
import { parseReminders } from '../output/formats/reminders.js';
import { parseInstant } from '../query/local-values.js';
import type { Store, SyncInfo } from '../store/store.js';
import { FORM_FIELDS, formSelection, formValues } from '../web/form-fields.js';
import { changesFeed, changesFeedId } from './changes-feed.js';
import { downloadValidators, notModified, type Validators } from './download-validators.js';
import { KEY_PARAM } from './subscription-keys.js';

/**
 * A sync's files, served by `tenders serve` under /syncs/{name}/: its tenders
 * in the formats of `export --local`, its deadlines as a calendar, its
 * changes as a feed. Each is streamed through the same formatters, from the
 * store's batches as they come (memory does not grow with the file), so its
 * bytes are those the command writes for the same selection.
 */
interface SyncFile {
  format: Format;
  type: string;
  /** Subscriptions (a calendar, a feed) are shown where they are opened; downloads are saved. */
  disposition: 'attachment' | 'inline';
  /** The query parameters it takes besides the selection's (the changes feed takes no selection). */
  params: readonly string[];
  changes?: true;
}

const TENDERS: Omit<SyncFile, 'format' | 'type'> = { disposition: 'attachment', params: [] };

export const SYNC_FILES: Readonly<Record<string, SyncFile>> = {
  'tenders.csv': { ...TENDERS, format: 'csv', type: 'text/csv; charset=utf-8; header=present' },
  'tenders.tsv': { ...TENDERS, format: 'tsv', type: 'text/tab-separated-values; charset=utf-8' },
  'tenders.ndjson': { ...TENDERS, format: 'ndjson', type: 'application/x-ndjson; charset=utf-8' },
  'tenders.json': { ...TENDERS, format: 'json', type: 'application/json; charset=utf-8' },
  'tenders.parquet': { ...TENDERS, format: 'parquet', type: 'application/vnd.apache.parquet' },
  'tenders.ocds.json': { ...TENDERS, format: 'ocds', type: 'application/json; charset=utf-8' },
  'deadlines.ics': { format: 'ics', type: 'text/calendar; charset=utf-8', disposition: 'inline', params: ['remind'] },
  'changes.atom': { format: 'atom', type: 'application/atom+xml; charset=utf-8', disposition: 'inline', params: ['since'], changes: true },
};

const FILE_PATH = /^\/syncs\/([^/]+)\/([^/]+)$/;

export interface DownloadRequest {
  method: string;
  /** The URL's path as it came (percent-encoded). */
  path: string;
  query: URLSearchParams;
  ifNoneMatch?: string;
  ifModifiedSince?: string;
  /** Where the client reached the server (origin.ts): a feed's id and title name it. */
  origin?: string;
}

export interface DownloadDeps {
  store: Store;
  /**
   * The copy opened once more for one request of a sync's file, closed when its answer ends: its
   * reads (the sync, then the file) are one snapshot on a connection of its own, held for as long
   * as the client takes to read it. Without it the request reads a snapshot of `store`.
   */
  openReader?: () => Promise<Store>;
  /** Only these syncs are served (--sync); another is 404. */
  syncs?: readonly string[];
  now(): Date;
}

export interface DownloadResponse {
  status: number;
  headers: Record<string, string>;
  body: string | AsyncIterable<Chunk>;
}

/**
 * The answer to GET (or HEAD) of /syncs/{name}/{file}, or undefined for any
 * other path. A parameter the file does not take, or a value its flag would
 * refuse, is 400; an unknown sync or file 404; a client that holds the
 * current version (If-None-Match, If-Modified-Since) gets 304.
 */
export async function answerDownload(request: DownloadRequest, deps: DownloadDeps): Promise<DownloadResponse | undefined> {
  const match = FILE_PATH.exec(request.path);
  if (match === null) return undefined;
  if (request.method !== 'GET' && request.method !== 'HEAD') return message(405, 'use GET', { allow: 'GET, HEAD' });
  const name = decoded(match[1]!);
  const file = SYNC_FILES[match[2]!];
  if (file === undefined) return message(404, `not found: ${request.path} (a sync's files are ${Object.keys(SYNC_FILES).join(', ')})`);
  let plan: FilePlan;
  try {
    plan = filePlan(file, request.query, deps.now());
  } catch (err) {
    if (err instanceof UsageError) return message(400, err.message);
    throw err;
  }
  if (name === undefined || (deps.syncs !== undefined && !deps.syncs.includes(name))) return noSync(name ?? match[1]!);
  // The sync is read through the download's reader too: its validators and its file are one snapshot,
  // and the server's own connection (its file mapped) does not read the sync's every membership to count them.
  const opened = deps.openReader ? await deps.openReader() : undefined;
  let reader: Store;
  try {
    reader = await (opened ?? deps.store).snapshot();
  } catch (err) {
    await opened?.close();
    throw err;
  }
  const release = async () => {
    await reader.close();
    await opened?.close();
  };
  try {
    const sync = await reader.getSync(name);
    if (sync === undefined) {
      await release();
      return noSync(name);
    }
    const validators = downloadValidators(sync.lastChange, match[2]!, name, request.query);
    const headers = {
      'content-type': file.type,
      'content-disposition': `${file.disposition}; filename="${`${name}-${match[2]}`.replace(/[^\w.-]/g, '_')}"`,
      ...validatorHeaders(validators),
    };
    let answer: DownloadResponse | undefined;
    if (notModified(validators, request.ifNoneMatch, request.ifModifiedSince)) answer = { status: 304, headers: validatorHeaders(validators), body: '' };
    else if (request.method === 'HEAD') answer = { status: 200, headers, body: '' };
    if (answer !== undefined) {
      await release();
      return answer;
    }
    return { status: 200, headers, body: await fileBody(file, plan, sync, request, reader, release) };
  } catch (err) {
    await release();
    throw err;
  }
}

const noSync = (name: string) => message(404, `no sync named ${JSON.stringify(name)}`);

/** What the query asks of a file, checked before anything is read. */
interface FilePlan {
  selection: LocalSelection;
  reminders?: number[];
  since?: string;
}

function filePlan(file: SyncFile, query: URLSearchParams, now: Date): FilePlan {
  const takes = [...(file.changes ? [] : FORM_FIELDS.map((f) => f.name).filter((n) => n !== 'sync')), ...file.params];
  for (const name of new Set(query.keys())) {
    if (name === KEY_PARAM || takes.includes(name)) continue;
    if (name === 'sync') throw new UsageError('sync: the sync is named in the path (/syncs/NAME/…), not as a parameter');
    throw new UsageError(`unknown parameter ${name}: this file takes ${takes.join(', ')}`);
  }
  const plan: FilePlan = { selection: file.changes ? {} : formSelection(formValues(query), now) };
  const remind = query.get('remind');
  if (remind !== null) plan.reminders = named(() => parseReminders(remind), '--remind', 'remind');
  const since = query.get('since');
  if (since !== null && since.trim() !== '') plan.since = parseInstant('since', since, now, 'start');
  return plan;
}

/** A parser's answer; its refusal named as the parameter rather than the flag. */
function named<T>(parse: () => T, flag: string, param: string): T {
  try {
    return parse();
  } catch (err) {
    throw err instanceof UsageError ? new UsageError(err.message.replace(flag, param)) : err;
  }
}

/**
 * The file's bytes as they are made: the store's first batch is read before
 * the answer starts, so a selection the copy refuses (a full-text query FTS
 * cannot parse) is still a 400; the rest is read as the client takes it.
 */
async function fileBody(file: SyncFile, plan: FilePlan, sync: SyncInfo, request: DownloadRequest, reader: Store, release: () => Promise<void>): Promise<AsyncIterable<Chunk>> {
  if (file.changes) {
    const changes = reader.changes({ sync: sync.name, ...(plan.since !== undefined ? { since: plan.since } : {}) });
    const query = [...request.query].filter(([name]) => name !== KEY_PARAM);
    const self = request.origin === undefined ? undefined : `${request.origin}${request.path}${query.length > 0 ? `?${new URLSearchParams(query).toString()}` : ''}`;
    const feed = { id: changesFeedId(sync.name), title: `Changes of ${sync.name}`, updated: new Date(sync.lastChange), self };
    return released(changesFeed(reader, changes, feed), release);
  }
  const options: FormatOptions = { header: true, headerStyle: 'path', excelSafe: false, color: false, reminders: plan.reminders };
  const rows = reader.select({ ...plan.selection, sync: sync.name });
  const formatter = await createFormatter(file.format, options);
  const first = await rows.next();
  return released(
    (async function* () {
      try {
        if (!first.done) {
          yield formatter.page(first.value);
          for await (const batch of rows) yield formatter.page(batch);
        }
        yield formatter.end();
      } finally {
        await rows.return(undefined);
      }
    })(),
    release,
  );
}

/** The chunks of `body`, then the reader released, however the stream ends (the end, a client gone, a failure). */
async function* released(body: AsyncGenerator<Chunk>, release: () => Promise<void>): AsyncGenerator<Chunk> {
  try {
    yield* body;
  } finally {
    await release();
  }
}

function validatorHeaders(v: Validators): Record<string, string> {
  return { etag: v.etag, 'last-modified': v.lastModified, 'cache-control': 'no-cache' };
}

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function message(status: number, text: string, headers: Record<string, string> = {}): DownloadResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: JSON.stringify({ message: text }) };
}
