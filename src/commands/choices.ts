import type { Command } from 'commander';
import { UsageError } from '../errors.js';

/**
 * Every choice value of every option and argument under `cmd`, in any case
 * (`-f CSV`, `--color NEVER`), as --sort and -c take theirs; a value that is
 * none of them is the tool's one-line usage error, not commander's own.
 */
export function foldChoiceCase(cmd: Command, path: readonly string[] = [cmd.name()]): void {
  const help = `(see '${path.join(' ')} --help')`;
  for (const option of cmd.options) {
    if (option.argChoices) option.argParser(choiceParser(option.argChoices, option.long ?? option.flags, help));
  }
  for (const argument of cmd.registeredArguments) {
    if (argument.argChoices) argument.argParser(choiceParser(argument.argChoices, `${cmd.name()} ${argument.name().toUpperCase()}`, help));
  }
  for (const sub of cmd.commands) foldChoiceCase(sub, [...path, sub.name()]);
}

function choiceParser(choices: readonly string[], what: string, help: string): (value: string) => string {
  return (value) => {
    const match = choices.find((choice) => choice.toLowerCase() === value.trim().toLowerCase());
    if (match === undefined) throw new UsageError(`${what} takes one of ${choices.join(', ')}, not '${value}' ${help}`);
    return match;
  };
}
