import { UsageError } from '../errors.js';
import type { IO } from '../io.js';
import { recordFormats } from '../output/format-registry.js';
import { createReporter, type Reporter } from '../output/terminal/reporter.js';
import type { OutputPlan } from '../run/plan.js';
import type { CommandContext } from './context.js';
import type { GlobalFlags, OutputFlags } from './flags.js';
import { interactiveFormat, outputFile, outputPlan } from './flag-plans.js';

/**
 * `--list` and `--forget` of saved queries (watches, syncs): refused with the
 * flags of a run (`runFlags`, named in `runFlagNames`), a NAME where none
 * belongs, none where one does, and --dry-run; said before anything runs.
 */
export function checkListOrForget(
  kind: 'watch' | 'sync',
  name: string | undefined,
  flags: { list?: boolean; forget?: boolean },
  run: { given: boolean; names: string; dryRun: boolean },
): void {
  if (flags.list && flags.forget) throw new UsageError('--list and --forget contradict each other: choose one');
  const what = flags.list ? '--list' : '--forget';
  if (run.given) throw new UsageError(`${what} takes no filters, ${run.names}`);
  if (flags.list && name !== undefined) throw new UsageError(`--list lists every ${kind}: leave the NAME out`);
  if (flags.forget && name === undefined) throw new UsageError(`--forget needs the NAME of the ${kind} to delete`);
  if (run.dryRun) throw new UsageError(`--dry-run shows the requests a run would send: ${what} sends none`);
}

/**
 * The --list / --forget branch of a saved-query command, once checked: one
 * reporter and the list's output plan, then the command's own runner.
 */
export async function listOrForget(
  ctx: CommandContext,
  flags: OutputFlags & { list?: boolean },
  globals: GlobalFlags,
  run: { list(plan: OutputPlan, say: Reporter): Promise<void>; forget(say: Reporter): Promise<void> },
): Promise<void> {
  const say = createReporter(ctx.io, { quiet: Boolean(globals.quiet), verbose: Boolean(globals.verbose) });
  if (flags.list) await run.list(listPlan(flags, ctx.io), say);
  else await run.forget(say);
}

/** A list (of watches, of syncs: not of tenders) is written in a format that writes any records. */
export function listPlan(flags: OutputFlags, io: IO): OutputPlan {
  const plan = outputPlan(flags, interactiveFormat(io, outputFile(flags)));
  const formats = recordFormats();
  if (!formats.includes(plan.format)) throw new UsageError(`--list prints ${formats.join(', ')}: ${plan.format} is for tenders`);
  return plan;
}
