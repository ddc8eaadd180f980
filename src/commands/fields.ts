import { Option, type Command } from 'commander';
import { FIELD_LIST_FORMATS, type FieldListFormat } from '../output/field-list.js';
import { endpointPath, ORGS_SEARCH, TENDERS, type Endpoint } from '../query/endpoints.js';
import { orgBody } from '../query/org-body.js';
import { tenderBody } from '../query/tender-body.js';
import { withClient, withPager, type CommandContext } from './context.js';
import { addOrgFilters, addTenderFilters, examples, pathOption, type GlobalFlags, type OrgFilterFlags, type TenderFilterFlags } from './flags.js';
import { connectionPlan } from './flag-plans.js';

/** Results in the sample `fields` looks at, unless -n says otherwise: enough to meet optional fields. */
export const FIELDS_SAMPLE = 20;

/** What `fields` lists the fields of: an operation, its filter flags and its body. */
export interface FieldsSpec<F> {
  endpoint: Endpoint;
  filters(cmd: Command): void;
  body(flags: F, pageSize: number | undefined): Record<string, unknown>;
  /** Whether --path may move the operation. */
  pathFlag?: boolean;
  examples: string[];
}

export const tenderFieldsSpec: FieldsSpec<TenderFilterFlags> = {
  endpoint: TENDERS,
  filters: addTenderFilters,
  body: tenderBody,
  examples: [
    'tenders fields',
    'tenders fields --country DEU --status open      # the fields of what you search',
    'tenders fields | cut -f1                        # just the paths',
    'tenders fields -f json | jq -r ".[].path"',
  ],
};

export const orgFieldsSpec: FieldsSpec<OrgFilterFlags> = {
  endpoint: ORGS_SEARCH,
  filters: addOrgFilters,
  body: orgBody,
  pathFlag: true,
  examples: ['tenders orgs fields', 'tenders orgs fields --country FRA -f tsv'],
};

type FieldsFlags<F> = F & { format?: FieldListFormat; path?: string };

/**
 * `fields`: fetches one small page with the same filters as the search and
 * prints every dot path its results have, for --columns, with an example.
 */
export function registerFields<F>(parent: Command, spec: FieldsSpec<F>, ctx: CommandContext): Command {
  const { noun } = spec.endpoint;
  const cmd = parent
    .command('fields')
    .summary(`list the fields of ${noun}, for --columns`)
    .description(
      `Fetch one page of ${noun} (${FIELDS_SAMPLE} unless -n says otherwise; the filters choose which) and print every ` +
        'dot path their fields have, with an example value: the names --columns takes.',
    );
  spec.filters(cmd);
  if (spec.pathFlag && spec.endpoint.envName) cmd.addOption(pathOption(spec.endpoint.envName, spec.endpoint.path));
  const format = new Option('-f, --format <format>', 'table, tsv (path<TAB>example as JSON) or json').choices(FIELD_LIST_FORMATS);
  format.defaultValueDescription = 'table on a terminal, else tsv';
  cmd.addOption(format);
  cmd.addHelpText('after', examples(spec.examples));
  cmd.action(async (flags: FieldsFlags<F>, command: Command) => {
    const globals = command.optsWithGlobals<GlobalFlags>();
    const connection = connectionPlan(globals, ctx.io);
    const plan = {
      connection,
      query: { path: endpointPath(spec.endpoint, ctx.io.env, flags.path), body: spec.body(flags, FIELDS_SAMPLE), noun },
      format: flags.format ?? (ctx.io.stdoutIsTTY ? 'table' : 'tsv'),
    };
    const { runFields } = await import('../run/field-sample.js');
    await withPager(ctx, connection, globals.pager, () => withClient(ctx, connection, (deps) => runFields(plan, deps), () => [plan.query]));
  });
  return cmd;
}

export const registerTenderFields = (root: Command, ctx: CommandContext): Command => registerFields(root, tenderFieldsSpec, ctx);
