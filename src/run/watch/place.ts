import type { Session } from '../session.js';
import type { WatchPlan } from '../plan.js';
import { watchFiles, type WatchFiles } from './location.js';
import { loadState, readHeader, StateError, type LoadedState, type StateHeader } from './state.js';

/**
 * Where a watch keeps its state between runs: a file in the state directory,
 * or a PostgreSQL copy (./postgres-place.ts). A run reads and writes the state
 * as a file either way (`files`); `save()` makes the next state the watch's
 * once the run's output was delivered.
 */
export interface WatchPlace {
  /** The state as the run reads it, and the next state's file beside it. */
  readonly files: WatchFiles;
  /** Where the state is kept, as said to the user: the file, or the watch in its copy. */
  readonly label: string;
  /** The saved state's header; undefined for a watch without one yet. */
  header(): Promise<StateHeader | undefined>;
  /** The whole saved state, read into `files.state` first when it is kept elsewhere. */
  load(): Promise<LoadedState>;
  /** After the next state was put at `files.state`: it becomes the watch's. */
  save(): Promise<void>;
  /** Throws when the place can no longer keep the state (its connection, and the lock, lost): the walk stops at the next page. */
  check(): void;
}

/** The place of the plan's watch, under its lock for the session. */
export async function openPlace(plan: WatchPlan, session: Session): Promise<WatchPlace> {
  if (plan.db) {
    const { openPostgresPlace } = await import('./postgres-place.js');
    return openPostgresPlace(plan, plan.db, session);
  }
  const files = watchFiles(plan.dir!, plan.name);
  const { fs } = session;
  return {
    files,
    label: files.state,
    header: () => readHeader(files.state, fs),
    load: () => loadState(files.state, fs),
    save: async () => undefined, // the session locked the file; the writer's rename saved it
    check: () => undefined,
  };
}

/** A damaged state named where it is kept, not by the copy a run read of it. */
export function placedError(err: unknown, place: WatchPlace): unknown {
  return err instanceof StateError && place.label !== place.files.state ? err.of(place.label) : err;
}
