import { Option, type Command } from 'commander';
import { UsageError } from '../errors.js';
import { recordFormats, traitsOf } from '../output/format-registry.js';
import { parseInstant } from '../query/local-values.js';
import { parseSavedName } from '../query/validate.js';
import type { ColumnSpec } from '../model/column-spec.js';
import { storeTarget } from '../store/location.js';
import { withPager, type CommandContext } from './context.js';
import { addOutputFlags, dbOption, examples, type GlobalFlags, type OutputFlags } from './flags.js';
import { interactiveFormat, localConnectionPlan, outputFile, outputPlan } from './flag-plans.js';
import { closeMatches } from '../model/close-match.js';

/** The fields of a change record, in the order every format writes them. */
export const CHANGE_FIELDS = ['at', 'sync', 'id', 'kind', 'field', 'old', 'new'] as const;

/**
 * What an 80-column terminal shows of a change: the kind and the field are
 * never cut; the sync's name goes first, then the time. The values are not
 * table columns there: they go under the row as a word diff, whole
 * (FormatChoice.diff); the table of a file or a pipe has them as columns.
 */
export const CHANGE_COLUMNS: readonly ColumnSpec[] = [
  { path: 'at', header: 'at', priority: 4 },
  { path: 'sync', header: 'sync', priority: 1, cut: 8 },
  { path: 'id', header: 'id', priority: 7 },
  { path: 'kind', header: 'kind', priority: 8, width: 'changed'.length },
  { path: 'field', header: 'field', priority: 6 },
  { path: 'old', header: 'old', priority: 5, cut: 8 },
  { path: 'new', header: 'new', priority: 5, cut: 8 },
];

type ChangesFlags = OutputFlags & { since?: string; id?: string; db?: string };

export function registerChanges(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('changes')
    .summary('the history tenders sync recorded: new, changed (field, old, new) and gone tenders')
    .description(
      'Print the changes the syncs recorded in the local copy, oldest first, one row per change: when, which sync, ' +
        'which tender, the kind (new, changed, gone) and, for a change, the field with its old and new value. ' +
        'NAME limits it to one sync. Reads the copy only: no service is asked.',
    )
    .argument('[name]', 'only the changes of this sync')
    .addOption(new Option('--since <date>', 'changes recorded at or after DATE (2026-03-01, a timestamp with its zone, or back from now: 30m, 12h, 7d, 2w)'))
    .addOption(new Option('--id <tender>', "one tender's history"))
    .addOption(dbOption());
  // atom: the changes as a feed, as tenders serve publishes a sync's (run/changes.ts).
  addOutputFlags(cmd, 'table on a terminal, else ndjson', { max: false, also: ['atom'] });
  cmd.addHelpText(
    'after',
    examples([
      'tenders changes                                  # every change, oldest first',
      'tenders changes deu-open --since 7d              # one sync, the last week',
      'tenders changes --id T-0001234                   # one tender\'s history',
      "tenders changes --since 1d -f ndjson | jq -r 'select(.field == \"deadline\") | .id'",
      'tenders changes deu-open -o changes.csv          # atomic, for cron',
      'tenders changes deu-open --since 30d -o deu.atom # a feed file, as tenders serve publishes it',
    ]),
  );
  cmd.action(async (name: string | undefined, flags: ChangesFlags, command: Command) => {
    const globals = command.optsWithGlobals<GlobalFlags>();
    const db = storeTarget(flags.db, ctx.io.env);
    const output = outputPlan(flags, interactiveFormat(ctx.io, outputFile(flags)));
    // A file's name can still name a format of tenders (-o x.ics).
    if (!traitsOf(output.format).anyRecords && output.format !== 'atom') {
      throw new UsageError(`changes --format ${output.format} writes tenders only: choose ${[...recordFormats(), 'atom'].join(', ')}`);
    }
    if (output.format === 'atom' && output.columns !== undefined) throw new UsageError('changes --format atom writes whole entries: --columns goes with the other formats');
    for (const column of output.columns ?? []) checkChangeColumn(column);
    const filter = {
      ...(name !== undefined ? { sync: parseSavedName('sync', name) } : {}),
      ...(flags.since !== undefined ? { since: parseInstant('--since', flags.since, new Date(), 'start') } : {}),
      ...(flags.id !== undefined ? { id: flags.id } : {}),
    };
    const plan = {
      db,
      filter,
      connection: localConnectionPlan(globals, db.location),
      // A table fits CHANGE_COLUMNS to the terminal whatever the first changes hold, old and new under each row (--columns would
      // rank them as listed); the other formats write every field, in this order.
      output: {
        ...output,
        columns: output.columns ?? (traitsOf(output.format).forPeople ? undefined : [...CHANGE_FIELDS]),
        defaultColumns: CHANGE_COLUMNS,
        allDefaults: true,
        diff: { old: 'old', new: 'new' },
      },
    };
    const { runChanges } = await import('../run/changes.js');
    await withPager(ctx, plan.connection, globals.pager && !output.file, () => runChanges(plan, { io: ctx.io, signal: ctx.signal, fs: ctx.fs }));
  });
}

/** A --columns path of a change starts at one of its fields (old.amount goes into a value): any other is a typo, said before anything runs. */
function checkChangeColumn(column: string): void {
  const head = column.split('.')[0]!;
  if ((CHANGE_FIELDS as readonly string[]).includes(head)) return;
  const guesses = closeMatches(head, CHANGE_FIELDS);
  const guess = guesses.length ? `; did you mean ${guesses.join(' or ')}?` : '';
  throw new UsageError(`--columns ${column}: a change has no field '${head}' (it has ${CHANGE_FIELDS.join(', ')})${guess}`);
}
