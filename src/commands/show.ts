import { Option, type Command } from 'commander';
import { UsageError } from '../errors.js';
import { storeTarget } from '../store/location.js';
import { withPager, type CommandContext } from './context.js';
import { dbOption, examples, localOption, type GlobalFlags } from './flags.js';
import { cpvPathsPlan, localConnectionPlan } from './flag-plans.js';

const SHOW_FORMATS = ['text', 'json'] as const;

type ShowFlags = { format: (typeof SHOW_FORMATS)[number]; local?: boolean; db?: string };

/**
 * `tenders show ID`: one tender, readable, with its history, from the local
 * copy: the spec has no operation that returns one tender (docs/decisions.md).
 */
export function registerShow(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('show')
    .summary('one tender from the local copy: every field, CPV names, the deadline countdown, its history')
    .description(
      'Print one tender of the local copy tenders sync keeps as an aligned list: every field (objects indented, arrays ' +
        'numbered, long text wrapped), its CPV codes with their names, the deadline with how far it is, and its history: ' +
        'when a sync first saw it, each change (field, old → new, when) and whether it is gone. The service has no operation ' +
        'that returns one tender, so show reads the copy only: --local is what it always does.',
    )
    .argument('<id>', 'the tender id (T-0004543)')
    .addOption(localOption())
    .addOption(dbOption())
    .addOption(new Option('-f, --format <format>', 'text: the list; json: {"tender": ..., "history": ...}').choices(SHOW_FORMATS).default('text'));
  cmd.addHelpText(
    'after',
    examples([
      'tenders show T-0004543',
      'tenders show T-0004543 -f json | jq .history.changes',
      'tenders show T-0004543 --db postgres://db.example.org/procurement',
    ]),
  );
  cmd.action(async (id: string, flags: ShowFlags, command: Command) => {
    const globals = command.optsWithGlobals<GlobalFlags>();
    if (globals.dryRun) throw new UsageError('--dry-run shows the requests a run would send: show sends none, it reads the local copy');
    const db = storeTarget(flags.db, ctx.io.env);
    const plan = { db, id, format: flags.format, cpvPaths: cpvPathsPlan(globals, ctx.io.env), verbose: Boolean(globals.verbose) };
    const { runShow } = await import('../run/show.js');
    await withPager(ctx, localConnectionPlan(globals, db.location), globals.pager && flags.format === 'text', () =>
      runShow(plan, { io: ctx.io, signal: ctx.signal, now: new Date() }),
    );
  });
}
