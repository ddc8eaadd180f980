import type { Argument, Command, Option } from 'commander';
import { UsageError } from '../errors.js';

/**
 * Every choice value of every option and argument under `cmd`, in any case
 * (`-f CSV`, `--color NEVER`), as --sort and -c take theirs; a value that is
 * none of them is the tool's one-line usage error, not commander's own.
 */
export function foldChoiceCase(cmd: Command, path: readonly string[] = [cmd.name()]): void {
  const help = `(see '${path.join(' ')} --help')`;
  for (const option of cmd.options) {
    if (option.argChoices && !OPEN.has(option)) option.argParser(choiceParser(option.argChoices, option.long ?? option.flags, help));
  }
  for (const argument of cmd.registeredArguments) {
    if (argument.argChoices && !OPEN.has(argument)) argument.argParser(choiceParser(argument.argChoices, `${cmd.name()} ${argument.name().toUpperCase()}`, help));
  }
  for (const sub of cmd.commands) foldChoiceCase(sub, [...path, sub.name()]);
}

const OPEN = new WeakSet<Option | Argument>();

/**
 * Choices shown in help and offered by completion that do not limit the
 * value (count --by: country or status, or with --local any dot path):
 * `parse` checks it; foldChoiceCase leaves the option alone.
 */
export function openChoices(option: Option, choices: readonly string[], parse: (value: string) => string): Option {
  option.argChoices = [...choices];
  OPEN.add(option);
  return option.argParser(parse);
}

/** The same for an argument (config get KEY), checked by the command itself. */
export function openArgumentChoices(argument: Argument, choices: readonly string[]): Argument {
  argument.argChoices = [...choices];
  OPEN.add(argument);
  return argument;
}

function choiceParser(choices: readonly string[], what: string, help: string): (value: string) => string {
  return (value) => {
    const match = choices.find((choice) => choice.toLowerCase() === value.trim().toLowerCase());
    if (match === undefined) throw new UsageError(`${what} takes one of ${choices.join(', ')}, not '${value}' ${help}`);
    return match;
  };
}
