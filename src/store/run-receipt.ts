import type { RunCounts, RunFacts, RunMode, RunReceipt, SyncDefinition } from './store.js';

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
