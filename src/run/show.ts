import { RunError } from '../errors.js';
import type { IO } from '../io.js';
import { stringifyExact } from '../model/exact-json.js';
import { withoutPasswords } from '../model/redact.js';
import { cpvNameFile } from '../files/cpv-file.js';
import { neutralizeForTerminal } from '../output/terminal/sanitize.js';
import { printTo } from '../files/sink.js';
import { renderTenderView, type TenderHistory } from '../output/terminal/tender-view.js';
import type { StoreTarget } from '../store/location.js';
import type { Store } from '../store/store.js';
import { createReporter } from '../output/terminal/reporter.js';
import { copyCpvPaths } from './copy-cpv-paths.js';
import { withLocalCopy } from './local-copy.js';

/** `tenders show ID`: which tender, from which copy, as the view or as JSON. */
export interface ShowPlan {
  db: StoreTarget;
  id: string;
  format: 'text' | 'json';
  /** The cpv-paths setting: the copy's own paths name the codes (run/copy-cpv-paths.ts); --verbose says when they differ. */
  cpvPaths: readonly string[];
  verbose: boolean;
}

/**
 * One tender from the local copy with its history there (first seen, each
 * change, gone): the service has no operation that returns one tender, so
 * the copy is where it is read (docs/decisions.md).
 */
export async function runShow(plan: ShowPlan, { io, signal, now }: { io: IO; signal: AbortSignal; now: Date }): Promise<void> {
  const found = await withLocalCopy(plan.db, undefined, signal, async (copy) => {
    // One snapshot: the tender and its history as one commit left them, and on PostgreSQL one transaction, not three.
    const store = await copy.snapshot();
    try {
      return await storyOf(store, plan, io);
    } finally {
      await store.close();
    }
  });
  if (!found) throw new RunError(`no tender '${plan.id}' in the local copy at ${withoutPasswords(plan.db.location)}: a sync whose query matches it keeps it`);
  if (plan.format === 'json') {
    const text = `${stringifyExact({ tender: found.tender, history: found.history })}\n`;
    return printTo(io.stdout, signal, io.stdoutIsTTY ? neutralizeForTerminal(text, true) : text);
  }
  // A tender's few codes are named from the vocabulary's file without reading it whole.
  const names = cpvNameFile();
  let view: string;
  try {
    view = renderTenderView(found.tender, found.history, {
      width: io.stdoutWidth(),
      now,
      cpvPaths: found.cpvPaths,
      cpvName: (code) => names.name(code),
    });
  } finally {
    names.close();
  }
  await printTo(io.stdout, signal, view);
}

/** The tender `plan.id` of the copy `store` with its history there, and the paths its CPV codes are read from. */
async function storyOf(store: Store, plan: ShowPlan, io: IO) {
  const stored = await store.getTender(plan.id);
  if (!stored) return undefined;
  const changes: TenderHistory['changes'] = [];
  for await (const batch of store.changes({ id: plan.id })) {
    for (const c of batch) changes.push({ at: c.at, sync: c.sync, kind: c.kind, field: c.field, ...(c.old !== undefined ? { old: c.old } : {}), ...(c.new !== undefined ? { new: c.new } : {}) });
  }
  // The codes are named where the copy read them (what --local --cpv selects by).
  const cpvPaths = await copyCpvPaths(store, plan.cpvPaths, createReporter(io, { quiet: false, verbose: plan.verbose }));
  return { tender: stored.tender, history: { firstSeen: stored.firstSeen, goneAt: stored.goneAt, syncs: stored.syncs, changes }, cpvPaths };
}
