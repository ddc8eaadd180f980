import { createHash } from 'node:crypto';
import type { RecentIds } from './dedupe.js';
import type { ChainPosition } from './merge.js';
import type { Total } from '../model/total.js';
import { readRegular, removeName, writeFileAtomic } from '../files/exclusive-file.js';
import type { FormatterState } from '../output/formatter.js';
import type { FileSystem } from '../files/fs.js';
import type { OutputPlan, QueryPlan } from './plan.js';
import { stringifyExact } from '../model/exact-json.js';

/** What an interrupted `export -o FILE` needs to continue exactly where it stopped. */
export interface ResumeState {
  version: 1;
  /** Of the query and output options: a resume must not mix two exports. */
  fingerprint: string;
  /** The cursor of the next page to fetch; null when every page was written. */
  nextCursor: string | null;
  /** Bytes of FILE.partial that hold whole pages. */
  bytes: number;
  pages: number;
  formatter: FormatterState;
  total: Total | null;
  /** Ids of the last two pages, to keep dropping boundary duplicates. */
  recentIds: RecentIds;
  /** A partitioned export (--parallel): where each chain's unwritten results start, in partition order. */
  partitions?: { position: ChainPosition; total: Total | null; pages: number }[];
}

export function statePath(target: string): string {
  return `${target}.resume.json`;
}

/**
 * The identity of an export: the query and every output option but where it
 * goes, so an option added to OutputPlan can never silently break --resume;
 * and --parallel above 1, which changes how the export walks (and its state).
 */
export function fingerprint(query: QueryPlan, output: OutputPlan, max: number | undefined, parallel = 1): string {
  const { file: _file, resume: _resume, ...shape } = output;
  const identity = stringifyExact({ path: query.path, body: query.body, output: shape, max, ...(parallel > 1 ? { parallel } : {}) });
  return createHash('sha256').update(identity).digest('hex');
}

/** The saved state, or undefined when there is none (or it is a link, not ours to read). */
export async function loadState(target: string, fs?: FileSystem): Promise<ResumeState | undefined> {
  try {
    const state = JSON.parse((await readRegular(statePath(target), fs)) ?? '') as ResumeState;
    return state.version === 1 && typeof state.bytes === 'number' && Array.isArray(state.recentIds?.[1]) ? state : undefined;
  } catch {
    return undefined;
  }
}

/** Replaces the state file atomically, so a kill never leaves half a state. */
export async function saveState(target: string, state: ResumeState, fs?: FileSystem): Promise<void> {
  await writeFileAtomic(statePath(target), JSON.stringify(state), { fs });
}

export async function removeState(target: string, fs?: FileSystem): Promise<void> {
  await removeName(statePath(target), fs);
}
