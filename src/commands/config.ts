import { Argument, type Command } from 'commander';
import { UsageError } from '../errors.js';
import { configPath } from '../files/config-file.js';
import { SETTING_NAMES } from '../model/settings.js';
import { createReporter } from '../output/terminal/reporter.js';
import { printTo } from '../files/sink.js';
import type { ConfigTarget } from '../run/config.js';
import { openArgumentChoices } from './choices.js';
import type { CommandContext } from './context.js';
import { examples, type GlobalFlags } from './flags.js';
import { profileChoice } from './settings.js';

/**
 * `tenders config list|get|set|unset|path|edit`: the config file, whose
 * settings are the defaults of the global flags (tenders help config).
 */
export function registerConfig(program: Command, ctx: CommandContext): Command {
  const config = program
    .command('config')
    .summary('show or change the settings file: defaults of the global flags, and profiles')
    .description(
      'Show or change the config file ($TENDERS_CONFIG, else $XDG_CONFIG_HOME/tenders/config.toml, else ' +
        '~/.config/tenders/config.toml): the defaults of the global flags and --db, at its top level and in ' +
        '[profile.NAME] tables that --profile NAME or TENDERS_PROFILE picks. set and unset edit its text, keeping ' +
        'comments and order, and write it atomically (a new file is private, mode 600).',
    )
    .addHelpText(
      'after',
      examples([
        'tenders config set base-url https://tenders.example.org',
        'tenders config set db postgres://me@db.example/tenders --profile work',
        'tenders config list',
        'tenders --profile work config get db',
        'tenders config unset timeout',
        'tenders config edit',
      ], '\nPrecedence: flag > environment variable > profile > top level > built-in default.\n'),
    );
  const key = () => openArgumentChoices(new Argument('<key>', 'a setting'), SETTING_NAMES);
  const target = (command: Command): ConfigTarget => {
    // --dry-run sends nothing, and a config command sends nothing either: refused rather than ignored.
    if (command.optsWithGlobals<GlobalFlags>().dryRun) throw new UsageError(`--dry-run is for commands that send requests: config ${command.name()} sends none`);
    const file = configPath(ctx.io.env);
    if (file === undefined) throw new UsageError('no place for the config file: set HOME, XDG_CONFIG_HOME or TENDERS_CONFIG');
    return { file, profile: profileChoice(program, ctx.io.env)?.name };
  };
  const load = () => import('../run/config.js');
  const print = (text: string) => printTo(ctx.io.stdout, ctx.signal, text);

  config
    .command('list')
    .summary('print the settings of the file (with --profile: those in effect in it)')
    .description('Print every setting of the config file as KEY=VALUE, a profile\'s as profile.NAME.KEY=VALUE; with --profile (or TENDERS_PROFILE), the settings in effect in that profile. A password in a URL shows as ***.')
    .action(async (_flags: unknown, command: Command) => print((await load()).configList(target(command))));
  config
    .command('get')
    .summary("print one setting's value")
    .description("Print KEY's value in the profile --profile names, else at the top level; exit 1 when the file does not set it.")
    .addArgument(key())
    .action(async (name: string, _flags: unknown, command: Command) => print((await load()).configGet(target(command), name)));
  config
    .command('set')
    .summary('set a setting, at the top level or in a profile (--profile)')
    .description('Set KEY to VALUE at the top level of the config file, or in [profile.NAME] with --profile NAME; the file and its directory are made when missing.')
    .addArgument(key())
    .argument('<value>', "the value, checked against the setting's rule")
    .action(async (name: string, value: string, _flags: unknown, command: Command) => (await load()).configSet(target(command), name, value, ctx.fs));
  config
    .command('unset')
    .summary('remove a setting, from the top level or a profile (--profile)')
    .description("Remove KEY's line from the top level of the config file, or from [profile.NAME] with --profile NAME.")
    .addArgument(key())
    .action(async (name: string, _flags: unknown, command: Command) => {
      const where = target(command);
      if (!(await (await load()).configUnset(where, name, ctx.fs))) {
        const globals = command.optsWithGlobals<GlobalFlags>();
        createReporter(ctx.io, { quiet: Boolean(globals.quiet), verbose: Boolean(globals.verbose) }).hint(`${name} was not set in ${where.profile === undefined ? where.file : `[profile.${where.profile}] of ${where.file}`}: nothing to do`);
      }
    });
  config
    .command('path')
    .summary("print the config file's path (whether or not it exists)")
    .action(async (_flags: unknown, command: Command) => print(`${target(command).file}\n`));
  config
    .command('edit')
    .summary('open the config file in $VISUAL or $EDITOR')
    .description('Open the config file in $VISUAL, else $EDITOR, else vi (made first when missing, with every setting in a comment), then check what the editor left.')
    .action(async (_flags: unknown, command: Command) => (await load()).configEdit(target(command).file, ctx.io.env, ctx.fs));
  return config;
}

