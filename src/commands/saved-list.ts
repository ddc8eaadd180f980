import { UsageError } from '../errors.js';

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
