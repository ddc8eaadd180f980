import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { configPath, readConfigText } from '../files/config-file.js';
import type { Env, IO } from '../io.js';
import { maskedPasswords } from '../model/redact.js';
import { chosenSetting, SETTING_KEYS, type Settings } from '../model/settings.js';
import { createReporter } from '../output/terminal/reporter.js';
import { parseSettings } from '../run/settings-file.js';
import { isPostgresLocation } from '../store/store.js';
import type { GlobalFlags } from './flags.js';

/**
 * The config file's part in a run: its settings become the defaults of the
 * flags a command line did not give and no environment variable stands for.
 * Precedence: flag > environment variable > profile > top level > built-in default.
 */

/** Commands that run whatever the file says: the one that mends it, and help. */
const UNSETTLED = new Set(['config', 'help', 'completion']);

/**
 * The config file's settings, or undefined when there is none. The parser is
 * part of the start-up bundle, not of run.cjs: loading that (and a vendor
 * file before it) for a file of ten lines would cost a dry run four times the
 * parse (docs/settings.md, "Cost"); V8 compiles it only when a file is there.
 */
function loadSettings(env: Env): Settings | undefined {
  const file = configPath(env);
  const text = file === undefined ? undefined : readConfigText(file);
  return text === undefined ? undefined : parseSettings(text, file!);
}

/** The profile --profile or TENDERS_PROFILE picks, and which of them did. */
export function profileChoice(root: Command, env: Env): { name: string; by: string } | undefined {
  const flag = root.opts<{ profile?: string }>().profile;
  if (flag !== undefined) return { name: flag, by: '--profile' };
  return env.TENDERS_PROFILE ? { name: env.TENDERS_PROFILE, by: 'TENDERS_PROFILE' } : undefined;
}

/** The profile of `choice` in `settings`; one the file does not have is exit 2 naming the file and the profiles it has. */
function chosenProfile(settings: Settings | undefined, choice: { name: string; by: string } | undefined, env: Env): string | undefined {
  if (choice === undefined) return undefined;
  if (settings === undefined) throw new UsageError(`${choice.by} ${choice.name}: there is no config file (${configPath(env) ?? 'set HOME or TENDERS_CONFIG'})`);
  if (Object.hasOwn(settings.profiles, choice.name)) return choice.name;
  const names = Object.keys(settings.profiles);
  const has = names.length ? `its profiles are ${names.join(', ')}` : 'it has no [profile.NAME] table';
  throw new UsageError(`${choice.by} ${choice.name}: ${settings.file} has no [profile.${choice.name}]: ${has}`);
}

/**
 * Before a command's action: each setting of the file (the profile's, else
 * the top level's) becomes the value of its flag where the command line gave
 * none and no environment variable of it is set. --verbose says each one used.
 */
export function applySettings(root: Command, action: Command, io: IO): void {
  if (UNSETTLED.has(topCommand(action).name())) return;
  const choice = profileChoice(root, io.env);
  const settings = loadSettings(io.env);
  const profile = chosenProfile(settings, choice, io.env);
  if (!settings) return;
  const globals = action.optsWithGlobals<GlobalFlags>();
  const say = createReporter(io, { quiet: Boolean(globals.quiet), verbose: Boolean(globals.verbose) });
  for (const key of SETTING_KEYS) {
    // The global flags are the root's; --db is the command's own, where it has one.
    const owner = key.key === 'db' ? action : root;
    if (!owner.options.some((option) => option.attributeName() === key.option)) continue;
    const chosen = chosenSetting(settings, profile, key.key);
    if (chosen === undefined) continue;
    // What beats the file is said too: a setting that seems ignored is the question --verbose answers.
    const variable = key.variables.find((name) => io.env[name]);
    const given = !(owner.getOptionValueSource(key.option) ?? 'default').startsWith('default');
    if (given || variable) {
      say.debug(`--${key.key}: ${given ? 'the flag' : variable}, before ${chosen.from}`);
      continue;
    }
    // A watch keeps its state in a PostgreSQL copy only: a SQLite db is the syncs', as TENDERS_DB naming one is.
    if (key.key === 'db' && topCommand(action).name() === 'watch' && !isPostgresLocation(String(chosen.value))) continue;
    owner.setOptionValueWithSource(key.option, typeof chosen.value === 'number' ? String(chosen.value) : chosen.value, 'config');
    say.debug(`--${key.key} ${maskedPasswords(String(chosen.value))}: from ${chosen.from}`);
  }
}

function topCommand(command: Command): Command {
  let top = command;
  while (top.parent?.parent) top = top.parent;
  return top;
}

/**
 * The base URL of a saved sync or watch: a --base-url or TENDERS_BASE_URL is
 * the user's word (another service than the saved one is refused unless
 * --reset); anything less (the config file's base-url, or none) gives way to
 * the service it saved. The config's URL stays when it names that service:
 * it may carry a user name the saved one left out.
 */
export async function savedServiceFirst(
  command: Command,
  globals: GlobalFlags,
  io: IO,
  what: string,
  saved: () => Promise<string | undefined>,
): Promise<GlobalFlags> {
  if (command.getOptionValueSourceWithGlobals('baseUrl') === 'cli' || io.env.TENDERS_BASE_URL?.trim()) return globals;
  const service = await saved();
  if (service === undefined) return globals;
  const configured = globals.baseUrl;
  const say = createReporter(io, { quiet: Boolean(globals.quiet), verbose: Boolean(globals.verbose) });
  if (configured !== undefined && sameService(configured, service)) return globals;
  say.debug(`the base URL ${maskedPasswords(service)}: the service ${what} saved${configured === undefined ? '' : ' (before the config file\'s base-url)'}`);
  return { ...globals, baseUrl: service };
}

/** Whether `url` names `service` (a saved one: without credentials nor a trailing slash). */
function sameService(url: string, service: string): boolean {
  if (!URL.canParse(url.trim())) return false;
  const parsed = new URL(url.trim());
  parsed.username = '';
  parsed.password = '';
  return parsed.href.replace(/\/+$/, '') === service.replace(/\/+$/, '');
}
