import type { Command } from 'commander';
import type { CommandContext } from './context.js';

/** Adds a top-level command (with its subcommands) to the root. */
export type Register = (root: Command, ctx: CommandContext) => unknown;

/** A top-level command: its name, and its register function, its code loaded when asked for. */
export interface CommandEntry {
  name: string;
  load(): Promise<Register>;
}

/**
 * Every top-level command, in the order the root's help lists them. Each
 * command's module runs only when it is registered: a run that names one
 * command builds and runs that command's code alone (scripts/build.js).
 */
export const COMMANDS: readonly CommandEntry[] = [
  { name: 'search', load: async () => (await import('./search.js')).registerSearch },
  { name: 'export', load: async () => (await import('./export.js')).registerExport },
  { name: 'count', load: async () => (await import('./count.js')).registerCount },
  { name: 'fields', load: async () => (await import('./fields.js')).registerTenderFields },
  { name: 'orgs', load: async () => (await import('./orgs.js')).registerOrgs },
  { name: 'watch', load: async () => (await import('./watch.js')).registerWatch },
  { name: 'sync', load: async () => (await import('./sync.js')).registerSync },
  { name: 'changes', load: async () => (await import('./changes.js')).registerChanges },
  { name: 'show', load: async () => (await import('./show.js')).registerShow },
  { name: 'cpv', load: async () => (await import('./cpv.js')).registerCpv },
  { name: 'config', load: async () => (await import('./config.js')).registerConfig },
  { name: 'serve', load: async () => (await import('./serve.js')).registerServe },
  { name: 'completion', load: async () => (await import('./completion.js')).registerCompletion },
];

/**
 * The commands a run of `argv` needs: the one it names, or every command when
 * it names none we know (the root's help, `help`, a misspelt command, a flag
 * the root does not take): commander then sees the whole program, for its
 * help, suggestions and errors. Completion and the manual page take all too.
 */
export function commandsFor(root: Command, argv: readonly string[]): readonly CommandEntry[] {
  const name = commandName(root, argv);
  const named = COMMANDS.find((entry) => entry.name === name && name !== 'completion');
  return named ? [named] : COMMANDS;
}

/** The first word of argv that is not a root flag or a root flag's value; undefined at anything else. */
function commandName(root: Command, argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('-') || arg === '-') return arg;
    const flag = arg.split('=', 1)[0];
    const option = root.options.find((o) => o.long === flag || o.short === flag);
    if (!option) return undefined;
    const takesNext = !arg.includes('=') && (option.required || (option.optional && !argv[i + 1]?.startsWith('-')));
    if (takesNext) i++;
  }
  return undefined;
}
