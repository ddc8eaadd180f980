import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { closeMatches } from '../model/close-match.js';
import { escapeControls } from '../output/terminal/sanitize.js';
import { printTo } from '../files/sink.js';
import { brokenAt } from '../output/terminal/wrap.js';
import type { CommandContext } from './context.js';

import { HELP_TOPICS as TOPICS } from './topics/index.js';

/** The names of the help topics beside the commands: `tenders help environment`. */
export const HELP_TOPICS = TOPICS.map((topic) => topic.name);

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
    outputError: (message, write) =>
      write(`${brokenAt(`tenders: ${escapeControls(message.replace(/^error: /, '').trim().replace(/\s*\n\s*/g, ' '))} (see '${name} --help')`, ctx.io.stderrWidth())}\n`),
  });
  const subcommands = [...cmd.commands];
  if (subcommands.length > 0) {
    cmd.helpCommand(false);
    const topics = path.length === 1 ? HELP_TOPICS : [];
    cmd
      .command('help')
      .argument('[command...]', topics.length ? `a command, or a topic: ${topics.join(', ')}` : 'a command')
      .summary(`show the help of a command${topics.length ? ' or topic' : ''}`)
      .description(`Show the help of ${name}'s command COMMAND${topics.length ? `, or of a topic (${topics.join(', ')})` : ''}.`)
      .action(async (words: string[]) => {
        const topic = topics.length && words.length === 1 ? TOPICS.find((t) => t.name === words[0]) : undefined;
        if (topic) return printTo(ctx.io.stdout, ctx.signal, topic.text(ctx.io.stdoutWidth() ?? 80));
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
      if (target.parent === null) choices.push(...HELP_TOPICS);
      // "Did you mean", as commander says it of a mistyped command or flag.
      const guesses = closeMatches(word, choices);
      const guess = guesses.length ? ` (Did you mean ${guesses.join(' or ')}?)` : '';
      throw new UsageError(`no help for '${[name, ...words.slice(0, i + 1)].join(' ')}'${guess}: choose one of ${choices.join(', ')}`);
    }
    target = next;
  }
  return target;
}
