/**
 * The thread a SQLite sync run works on (dist/sqlite-worker.cjs): one run,
 * started with its RunInit as workerData (sendInit), answering each request in order
 * with {id, reply} or {id, error}. It ends when the run does.
 */

import { parentPort, workerData } from 'node:worker_threads';
import { receiveInit, RunHost, sendError, type RunRequest, type SentInit } from './sqlite-run-host.js';

const port = parentPort!;
let host: RunHost | undefined;
let failed: unknown;
try {
  host = new RunHost(receiveInit(workerData as SentInit));
} catch (err) {
  failed = err; // every request is answered with it: the run could not start
}

port.on('message', ({ id, request }: { id: number; request: RunRequest }) => {
  try {
    if (host) port.postMessage({ id, reply: host.handle(request) });
    else if (request.op === 'abort') port.postMessage({ id, reply: undefined });
    else throw failed;
  } catch (err) {
    port.postMessage({ id, error: sendError(err) });
  }
  if (request.op === 'commit' || request.op === 'abort') port.close();
});
