import type { Command } from 'commander';
import { ENVIRONMENT } from '../environment.js';
import { UsageError } from '../errors.js';
import { escapeControls } from '../output/sanitize.js';
import { printTo } from '../output/sink.js';
import type { CommandContext } from './context.js';

/** Help topics beside the commands: `tenders help environment`. */
const TOPICS: Record<string, (cmd: Command, width: number) => string> = {
  environment: environmentHelp,
};

export const HELP_TOPICS = Object.keys(TOPICS);

/**
 * Finishes the help of a built program, once every command is registered:
 * `help [COMMAND...]` on the root and on every group (`tenders help orgs
 * tenders`, `tenders orgs help tenders`), help topics, and usage errors that
 * point to the help of the command they happened in.
 */
export function finishHelp(program: Command, ctx: Pick<CommandContext, 'io' | 'signal'>): void {
  finish(program, ['tenders'], ctx);
}

function finish(cmd: Command, path: string[], ctx: Pick<CommandContext, 'io' | 'signal'>): void {
  const name = path.join(' ');
  // One line, with commander's "(Did you mean ...?)" on it, and where to read more.
  cmd.configureOutput({
    outputError: (message, write) => write(`tenders: ${escapeControls(message.replace(/^error: /, '').trim().replace(/\s*\n\s*/g, ' '))} (see '${name} --help')\n`),
  });
  const subcommands = [...cmd.commands];
  if (subcommands.length > 0) {
    cmd.helpCommand(false);
    const topics = path.length === 1 ? Object.keys(TOPICS) : [];
    cmd
      .command('help')
      .argument('[command...]', topics.length ? `a command, or a topic: ${topics.join(', ')}` : 'a command')
      .summary(`show the help of a command${topics.length ? ' or topic' : ''}`)
      .description(`Show the help of ${name}'s command COMMAND${topics.length ? `, or of a topic (${topics.join(', ')})` : ''}.`)
      .action(async (words: string[]) => {
        const topic = topics.length && words.length === 1 ? TOPICS[words[0]!] : undefined;
        if (topic) return printTo(ctx.io.stdout, ctx.signal, topic(cmd, ctx.io.stdoutWidth() ?? 80));
        helpOf(cmd, words, name).help();
      });
  }
  for (const sub of subcommands) finish(sub, [...path, sub.name()], ctx);
}

/** The command `words` name under `cmd`: `orgs tenders`. */
function helpOf(cmd: Command, words: readonly string[], name: string): Command {
  let target = cmd;
  for (const [i, word] of words.entries()) {
    const next = target.commands.find((sub) => sub.name() === word || sub.aliases().includes(word));
    if (!next) {
      const choices = target.commands.map((sub) => sub.name()).filter((sub) => sub !== 'help');
      if (target.parent === null) choices.push(...Object.keys(TOPICS));
      throw new UsageError(`no help for '${[name, ...words.slice(0, i + 1)].join(' ')}': choose one of ${choices.join(', ')}`);
    }
    target = next;
  }
  return target;
}

/** `tenders help environment`: every variable the CLI reads, as `gh help environment` lists its own. */
function environmentHelp(cmd: Command, width: number): string {
  const help = cmd.createHelp();
  help.helpWidth = width;
  const terms = ENVIRONMENT.map((variable) => variable.names.join(', '));
  const termWidth = Math.max(...terms.map((term) => term.length));
  const items = ENVIRONMENT.map((variable, i) => help.formatItem(terms[i]!, termWidth, variable.description, help));
  return `Environment variables tenders reads (flags win over them):\n\n${items.join('\n')}\n`;
}
