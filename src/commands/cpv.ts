import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { recordFormats } from '../output/format-registry.js';
import { createReporter } from '../output/terminal/reporter.js';
import type { CommandContext } from './context.js';
import { addOutputFlags, examples, type GlobalFlags, type OutputFlags } from './flags.js';
import { interactiveFormat, outputFile, outputPlan } from './flag-plans.js';

/**
 * `tenders cpv WORDS`: codes of the CPV 2008 vocabulary by name or branch,
 * read from the file the program ships (no service, no copy).
 */
export function registerCpv(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('cpv')
    .summary('find CPV codes by name (cpv road) or list a branch (cpv 4523)')
    .description(
      'Print the codes of the Common Procurement Vocabulary (CPV 2008, 9 454 codes) with their English names, in code order: ' +
        'each WORD must match, a word of letters anywhere in the name in any case, a code (2 to 8 digits) as the code itself and ' +
        'every code below it. No WORDS: every code. Use what it finds with --cpv (search, export and count with --local).',
    )
    .argument('[words...]', 'words of the name (road, clean), or a code whose branch to list (45, 4523)');
  addOutputFlags(cmd, 'table on a terminal, else ndjson', { max: false });
  cmd.addHelpText(
    'after',
    examples([
      'tenders cpv road                                 # 45233140 Roadworks, ...',
      'tenders cpv 4523                                 # the branch 4523: bridges, roads, ...',
      'tenders cpv clean hospital',
      'tenders cpv 45 -f tsv | cut -f1                  # every code of division 45',
    ]),
  );
  cmd.action(async (words: string[], flags: OutputFlags, command: Command) => {
    const globals = command.optsWithGlobals<GlobalFlags>();
    if (globals.dryRun) throw new UsageError('--dry-run shows the requests a run would send: cpv sends none, it reads the vocabulary tenders ships');
    const output = outputPlan(flags, interactiveFormat(ctx.io, outputFile(flags)));
    const formats = recordFormats();
    if (!formats.includes(output.format)) throw new UsageError(`cpv prints ${formats.join(', ')}: ${output.format} is for tenders`);
    const say = createReporter(ctx.io, { quiet: Boolean(globals.quiet), verbose: Boolean(globals.verbose) });
    const { runCpvSearch } = await import('../run/cpv-search.js');
    await runCpvSearch(words, output, ctx.io, ctx.signal, say, ctx.fs);
  });
}
