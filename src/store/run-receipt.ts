import { stringifyExact } from '../model/exact-json.js';
import type { RunCounts, RunFacts, RunMode, RunReceipt, SyncDefinition } from './store.js';

/** The columns of a `runs` row, in the order of runRowValues. */
export const RUN_COLUMNS = 'sync, query, service, mode, baseline, started, ended, complete, pages, requests, new, changed, gone, unchanged, seen, repeated, without_id, error';

/** The counts' columns, in the order of countValues. */
export const COUNT_COLUMNS = ['new', 'changed', 'gone', 'unchanged', 'seen', 'repeated', 'without_id'] as const;

/** A receipt as the values of its `runs` row (RUN_COLUMNS); `flag` writes a boolean as the engine stores it. */
export function runRowValues(r: RunReceipt, flag: (value: boolean) => unknown): unknown[] {
  return [r.sync, stringifyExact(r.query), r.service, r.mode, flag(r.baseline), r.startedAt, r.endedAt, flag(r.complete), r.pages, r.requests, ...countValues(r.counts), r.error];
}

/** Counts as the values of COUNT_COLUMNS. */
export function countValues(c: RunCounts): number[] {
  return [c.new, c.changed, c.gone, c.unchanged, c.seen, c.repeated, c.withoutId];
}

/** What a run knows of itself when it ends; both engines' runs hold the same. */
export interface RunSoFar {
  sync: SyncDefinition;
  mode: RunMode;
  baseline: boolean;
  startedAt: string;
  counts: RunCounts;
}

/** The `runs` row of a run that ended at `ended` (its number is the database's to give). */
export function runReceipt(run: RunSoFar, facts: RunFacts, ended: string, complete: boolean): RunReceipt {
  return {
    run: 0,
    sync: run.sync.name,
    query: run.sync.query,
    service: run.sync.service,
    mode: run.mode,
    baseline: run.baseline && complete,
    startedAt: run.startedAt,
    endedAt: ended,
    complete,
    pages: facts.pages,
    requests: facts.requests,
    counts: { ...run.counts },
    error: facts.error ?? null,
  };
}
