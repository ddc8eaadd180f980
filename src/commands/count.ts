import { Option, type Command } from 'commander';
import { TENDERS, endpointPath } from '../query/endpoints.js';
import { tenderBody, type TenderFilterFlags } from '../query/tender-body.js';
import { withClient, type CommandContext } from './context.js';
import { addTenderFilters, examples, type GlobalFlags } from './flags.js';
import { connectionPlan } from './plans.js';

export function registerCount(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('count')
    .summary('print how many tenders match')
    .description('Print the number of matching tenders from the first page\'s page.total; "10000+" when the service stops counting.');
  addTenderFilters(cmd);
  cmd.addOption(new Option('-f, --format <format>', 'text, or json: {"count":N,"capped":B}').choices(['text', 'json']).default('text'));
  cmd.addHelpText(
    'after',
    examples(['tenders count --country DEU --status open', 'tenders count -c FRA,ITA --format json | jq .count']),
  );
  cmd.action(async (flags: TenderFilterFlags & { format: string }, command: Command) => {
    const connection = connectionPlan(command.optsWithGlobals<GlobalFlags>(), ctx.io);
    const query = { path: endpointPath(TENDERS, ctx.io.env), body: tenderBody(flags), noun: TENDERS.noun };
    const { runCount } = await import('../run/count.js');
    await withClient(ctx, connection, (deps) => runCount(query, flags.format === 'json', deps));
  });
}
