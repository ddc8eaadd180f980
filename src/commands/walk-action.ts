import type { Command } from 'commander';
import type { Format } from '../output/formatter.js';
import type { QueryPlan } from '../run/plan.js';
import type { CommandContext } from './context.js';
import { connectionPlan, interactiveFormat, outputPlan, parseMax, type GlobalFlags, type OutputFlags } from './options.js';

export type WalkFlags = OutputFlags & { all?: boolean; cursor?: string };

/**
 * The shared end of search-like commands: flags → plan → run. `body` gets the
 * page size the walk should ask for (from --max, else `pageSize`).
 */
export async function runWalkCommand(
  command: Command,
  ctx: CommandContext,
  flags: WalkFlags,
  mode: 'search' | 'export',
  query: (pageSize: number | undefined) => QueryPlan,
  defaultColumns: string[],
  pageSize?: number,
): Promise<void> {
  const connection = connectionPlan(command.optsWithGlobals<GlobalFlags>());
  const max = parseMax(flags);
  const plan = query(max !== undefined ? Math.min(max, pageSize ?? 100, 100) : pageSize);
  const defaultFormat: Format = mode === 'export' ? 'csv' : interactiveFormat(flags.output);
  const output = { ...outputPlan(flags, defaultFormat), defaultColumns };
  const { runWalk } = await import('../run/walk.js');
  await runWalk(
    {
      connection,
      query: plan,
      cursor: flags.cursor,
      all: mode === 'export' || Boolean(flags.all),
      max,
      hints: mode === 'search',
      resumable: mode === 'export',
      output,
    },
    ctx.signal,
  );
}
