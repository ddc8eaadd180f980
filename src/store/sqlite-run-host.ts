/**
 * Where a SQLite sync run does its work: a connection of its own and the run
 * on it, driven by requests. It runs on a thread of its own (sqlite-worker.ts),
 * so that staging, comparing and committing use the machine's other core while
 * the walk fetches and parses pages on the main one; tests of src/ host it in
 * their own thread (sqlite-run-client.ts).
 */

import { RunError, UsageError } from '../errors.js';
import { stringifyExact, type JsonObject } from '../model/exact-json.js';
import { parseJson } from '../model/json-parse.js';
import { NewCopyRun } from './sqlite-new-copy.js';
import type { StagedPage } from './sqlite-rows.js';
import { openRun, type RunSetup } from './sqlite-run.js';
import type { RunFacts, RunReceipt } from './store.js';

export interface RunInit extends RunSetup {
  /** The copy does not exist yet and this run may build it (the caller holds its partial file's lock): sqlite-new-copy.ts. */
  newCopy: boolean;
}

/**
 * A RunInit as it crosses to the run's thread: the saved query as its JSON text, every digit of a big
 * number kept (a structured clone would make a RawNumber a plain object).
 */
export type SentInit = Omit<RunInit, 'sync'> & { sync: Omit<RunInit['sync'], 'query'> & { query: string } };

export function sendInit(init: RunInit): SentInit {
  return { ...init, sync: { ...init.sync, query: stringifyExact(init.sync.query) } };
}

export function receiveInit(sent: SentInit): RunInit {
  return { ...sent, sync: { ...sent.sync, query: parseJson(sent.sync.query) as JsonObject } };
}

export type RunRequest =
  | { op: 'known'; ids: readonly string[] }
  | { op: 'stage'; page: StagedPage }
  | { op: 'commit'; facts: RunFacts }
  | { op: 'abort' };

/** What a request gives back: known ids, a receipt, or nothing. */
export type RunReply = string[] | RunReceipt | undefined;

/** An error as it crosses between threads: its class by name, so RunError and UsageError keep their exit codes. */
export interface SentError {
  name: string;
  message: string;
  code?: string;
}

/** A run as the host drives it; commit and abort end it, its connection closed. */
export interface HostedRun {
  known(ids: readonly string[]): string[];
  stage(page: StagedPage): void;
  commit(facts: RunFacts): RunReceipt;
  abort(): void;
}

export class RunHost {
  readonly #run: HostedRun;
  #ended = false;

  constructor(init: RunInit) {
    this.#run = init.newCopy ? new NewCopyRun(init) : stagedRun(init);
  }

  /** Answers one request. */
  handle(request: RunRequest): RunReply {
    if (this.#ended) throw new Error('this sync run has ended');
    switch (request.op) {
      case 'known':
        return this.#run.known(request.ids);
      case 'stage':
        return void this.#run.stage(request.page);
      case 'commit':
        this.#ended = true;
        return this.#run.commit(request.facts);
      case 'abort':
        this.#ended = true;
        return void this.#run.abort();
    }
  }
}

/** A run into an existing copy (sqlite-run.ts). */
function stagedRun(init: RunInit): HostedRun {
  const { db, run } = openRun(init);
  return {
    known: (ids) => run.known(ids),
    stage: (page) => run.stage(page),
    commit: (facts) => {
      try {
        return run.commit(facts);
      } finally {
        db.close();
      }
    },
    abort: () => db.close(),
  };
}

export function sendError(err: unknown): SentError {
  const e = err instanceof Error ? err : new Error(String(err));
  return { name: e.name, message: e.message, code: (e as { code?: string }).code };
}

export function receiveError(sent: SentError): Error {
  if (sent.name === 'RunError') return new RunError(sent.message);
  if (sent.name === 'UsageError') return new UsageError(sent.message);
  return Object.assign(new Error(sent.message), { name: sent.name, code: sent.code });
}
