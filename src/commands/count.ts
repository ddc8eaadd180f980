import { Option, type Command } from 'commander';
import { tenderBody, type TenderFilterFlags } from '../query/tender-body.js';
import { TENDERS_PATH, type CommandContext } from './context.js';
import { addTenderFilterOptions, connectionPlan, examples, type GlobalFlags } from './options.js';

export function registerCount(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('count')
    .summary('print how many tenders match')
    .description('Print the number of matching tenders from the first page\'s page.total; "10000+" when the service stops counting.');
  addTenderFilterOptions(cmd);
  cmd.addOption(new Option('-f, --format <format>', 'text or json ({"count":N,"capped":B})').choices(['text', 'json']).default('text'));
  cmd.addHelpText(
    'after',
    examples(['tenders count --country DEU --status open', 'tenders count -c FRA,ITA --format json | jq .count']),
  );
  cmd.action(async (flags: TenderFilterFlags & { format: string }, command: Command) => {
    const connection = connectionPlan(command.optsWithGlobals<GlobalFlags>());
    const body = tenderBody(flags);
    const { runCount } = await import('../run/count.js');
    await runCount(connection, { path: TENDERS_PATH, body, noun: 'tenders' }, flags.format === 'json', ctx.signal);
  });
}
