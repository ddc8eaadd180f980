/**
 * A thread that answers `tenders serve`'s requests from a SQLite copy
 * (dist/serve-worker.cjs, started by answer-pool.ts): its own read-only
 * connection, opened at its first request and following the file at the path
 * as the server does (followed-copy.ts); one request at a time, each answered
 * whole in one snapshot, as {id, answer} or {id, error}.
 */

import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../store/open.js';
import { sendError, type Asked, type ThreadInit } from './answer-pool.js';
import { StoreAnswers } from './answers.js';
import { followedCopy } from './followed-copy.js';

const port = parentPort!;
const { path, context } = workerData as ThreadInit;
const open = () => openStore(path, { mode: 'read' });
let answers: Promise<StoreAnswers> | undefined;

/** The answers over the copy, opened when first asked; a copy that could not be opened is tried again at the next request. */
function opened(): Promise<StoreAnswers> {
  answers ??= open().then(
    (first) => new StoreAnswers(followedCopy(path, first, open), context),
    (err: unknown) => {
      answers = undefined;
      throw err;
    },
  );
  return answers;
}

// Opened as the thread starts, so that its first request does not wait for it (a failure is tried again then).
opened().catch(() => undefined);

port.on('message', ({ id, method, args }: Asked) => {
  // A page's query came as its text.
  const sent = method === 'page' ? [{ ...(args[0] as object), query: new URLSearchParams((args[0] as { query: string }).query) }] : args;
  opened()
    .then((a) => (a[method] as (...x: unknown[]) => Promise<unknown>).apply(a, sent))
    .then(
      (answer) => port.postMessage({ id, answer }),
      (err: unknown) => port.postMessage({ id, error: sendError(err) }),
    );
});
