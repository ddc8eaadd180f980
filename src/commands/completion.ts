import { Argument, type Command, type Option } from 'commander';
import { pathKey, type CompletionCommand, type CompletionModel, type CompletionOption } from '../output/completion/model.js';
import { printTo } from '../output/sink.js';
import type { CommandContext } from './context.js';
import { examples } from './flags.js';
import { HELP_TOPICS } from './help.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

/**
 * `tenders completion bash|zsh|fish`: a completion script made, when it runs,
 * from the program itself, so commands and flags added anywhere are in it.
 */
export function registerCompletion(program: Command, ctx: Pick<CommandContext, 'io' | 'signal'>): void {
  program
    .command('completion')
    .summary('print a shell completion script (bash, zsh, fish)')
    .description(
      'Print a script that completes commands, flags and flag values (formats, sort fields, ...) for SHELL. ' +
        'Load it from your shell\'s start-up file; it completes what this version of tenders knows.',
    )
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText(
      'after',
      examples([
        'echo \'eval "$(tenders completion bash)"\' >> ~/.bashrc',
        'tenders completion zsh > "${fpath[1]}/_tenders"      # then start a new shell',
        'tenders completion fish > ~/.config/fish/completions/tenders.fish',
      ]),
    )
    .action(async (shell: Shell) => {
      await printTo(ctx.io.stdout, ctx.signal, (await renderer(shell))(completionModel(program)));
    });
}

/** Loads only the shell's renderer. */
async function renderer(shell: Shell): Promise<(model: CompletionModel) => string> {
  switch (shell) {
    case 'bash':
      return (await import('../output/completion/bash.js')).bashScript;
    case 'zsh':
      return (await import('../output/completion/zsh.js')).zshScript;
    case 'fish':
      return (await import('../output/completion/fish.js')).fishScript;
  }
}

/** Every command of the program, with the options and values it completes. */
export function completionModel(program: Command): CompletionModel {
  const commands: CompletionCommand[] = [];
  const visit = (cmd: Command, path: string[]) => {
    const help = cmd.createHelp();
    const subcommands = help.visibleCommands(cmd);
    commands.push({
      path,
      description: cmd.summary() || cmd.description(),
      options: [...help.visibleOptions(cmd), ...inherited(cmd)].map(completionOption),
      subcommands: subcommands.map((sub) => ({ name: sub.name(), description: sub.summary() || sub.description() })),
      positionals: positionals(cmd),
    });
    for (const sub of subcommands) visit(sub, [...path, sub.name()]);
    if (subcommands.some((sub) => sub.name() === 'help')) helpWords(commands, cmd, [...path, 'help']);
  };
  visit(program, []);
  return { program: program.name(), commands };
}

/**
 * `help` takes command words (`tenders help orgs tenders`): each group under
 * `cmd` becomes a subcommand of `help` whose positionals are the group's
 * commands, so the scripts' walk through subcommands completes `help orgs <TAB>`.
 */
function helpWords(commands: CompletionCommand[], cmd: Command, helpPath: string[]): void {
  const entry = commands.find((c) => pathKey(c) === helpPath.join(' '));
  if (!entry) return;
  const groups = cmd.commands.filter((sub) => sub.name() !== 'help' && sub.commands.length > 0);
  entry.subcommands = groups.map((group) => ({ name: group.name(), description: group.summary() || group.description() }));
  entry.positionals = entry.positionals.filter((word) => !groups.some((group) => group.name() === word));
  for (const group of groups) {
    const words = group.createHelp().visibleCommands(group).filter((sub) => sub.name() !== 'help');
    commands.push({
      path: [...helpPath, group.name()],
      description: `help of ${group.name()}'s commands`,
      options: entry.options,
      subcommands: [],
      positionals: words.map((sub) => sub.name()),
    });
  }
}

/** The options of the commands above: accepted after this one too. */
function inherited(cmd: Command): Option[] {
  const options: Option[] = [];
  for (let above = cmd.parent; above; above = above.parent) options.push(...above.options.filter((option) => !option.hidden));
  return options;
}

function completionOption(option: Option): CompletionOption {
  return {
    names: [option.short, option.long].filter((name): name is string => name !== undefined),
    description: option.description,
    takesValue: option.required || option.optional,
    choices: option.argChoices ?? [],
    file: /<file>|\[file\]/.test(option.flags),
  };
}

/** Choices of its arguments; for `help`, the commands (and topics) it can show. */
function positionals(cmd: Command): string[] {
  const parent = cmd.parent;
  if (cmd.name() === 'help' && parent) {
    const siblings = parent.commands.map((sub) => sub.name()).filter((name) => name !== 'help');
    return parent.parent === null ? [...siblings, ...HELP_TOPICS] : siblings;
  }
  return cmd.registeredArguments.flatMap((arg) => arg.argChoices ?? []);
}
