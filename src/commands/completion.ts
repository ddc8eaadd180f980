import { Argument, type Command } from 'commander';
import { printTo } from '../files/sink.js';
import type { CommandContext } from './context.js';
import { examples } from './flags.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

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
      // The model and the scripts load only for this command, not on every start-up.
      const { completionScript } = await import('./completion-model.js');
      await printTo(ctx.io.stdout, ctx.signal, await completionScript(shell, program));
    });
}
