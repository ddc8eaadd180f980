import type { Command, Option } from 'commander';
import { pathKey, type CompletionCommand, type CompletionModel, type CompletionOption, type SavedKind } from '../output/completion/model.js';
import type { Shell } from './completion.js';
import { TENDER_FILTERS } from '../query/tender-filters.js';
import { HELP_TOPICS } from './help.js';

/** The completion script of `program` for `shell`. */
export async function completionScript(shell: Shell, program: Command): Promise<string> {
  return (await renderer(shell))(completionModel(program));
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
      saved: SAVED_ARGUMENTS[path.join(' ')],
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

/** The commands whose argument names a saved sync or watch, and the flags whose value does. */
const SAVED_ARGUMENTS: Readonly<Record<string, SavedKind>> = { sync: 'sync', watch: 'watch', changes: 'sync' };
const SAVED_OPTIONS: Readonly<Record<string, SavedKind>> = { '--sync': 'sync', '--profile': 'profile' };

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
    choices: option.argChoices ?? [...(TENDER_FILTERS.find((row) => row.flag === option.long)?.complete ?? [])],
    file: /<file>|\[file\]/.test(option.flags),
    saved: option.long === undefined ? undefined : SAVED_OPTIONS[option.long],
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
