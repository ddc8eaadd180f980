import { RunError, UsageError } from '../errors.js';
import { readConfigText } from '../files/config-file.js';
import { writeConfigText } from '../files/config-write.js';
import { runEditor } from '../files/editor.js';
import type { FileSystem } from '../files/fs.js';
import type { Env } from '../io.js';
import { maskedPasswords } from '../model/redact.js';
import { chosenSetting, PROFILE_NAME, SETTING_KEYS, settingKey, tomlValue, type SettingKey, type Settings, type SettingValue } from '../model/settings.js';
import { setInText, unsetInText } from './config-text.js';
import { parseSettings, unknownKey } from './settings-file.js';

/** `tenders config list|get|set|unset|edit`: the config file read, or edited as text and checked before it is written. */

/** The file a config command works on, and the profile (--profile, TENDERS_PROFILE) it works in. */
export interface ConfigTarget {
  file: string;
  profile?: string;
}

/** The file's text and settings; empty when there is no file. */
function read(file: string): { text: string; settings: Settings } {
  const text = readConfigText(file) ?? '';
  return { text, settings: parseSettings(text, file) };
}

/** A value as `config` prints it: strings bare, a URL's password as ***. */
const shown = (value: SettingValue) => (typeof value === 'string' ? maskedPasswords(value) : String(value));

/**
 * `config list`: every setting of the file, KEY=VALUE, a profile's as
 * profile.NAME.KEY=VALUE; with a profile, the settings in effect in it
 * (its own, else the top level's).
 */
export function configList(target: ConfigTarget): string {
  const { settings } = read(target.file);
  const lines: string[] = [];
  if (target.profile !== undefined) {
    checkProfile(settings, target.profile);
    for (const { key } of SETTING_KEYS) {
      const chosen = chosenSetting(settings, target.profile, key);
      if (chosen) lines.push(`${key}=${shown(chosen.value)}`);
    }
  } else {
    for (const [key, value] of Object.entries(settings.top)) lines.push(`${key}=${shown(value!)}`);
    for (const [name, table] of Object.entries(settings.profiles)) {
      for (const [key, value] of Object.entries(table)) lines.push(`profile.${name}.${key}=${shown(value!)}`);
    }
  }
  return lines.map((line) => `${line}\n`).join('');
}

/** `config get KEY`: its value in the profile (else the top level); not set is exit 1. */
export function configGet(target: ConfigTarget, key: string): string {
  known(key, target.file);
  const { settings } = read(target.file);
  if (target.profile !== undefined) checkProfile(settings, target.profile);
  const chosen = chosenSetting(settings, target.profile, key);
  if (!chosen) throw new RunError(`${key} is not set in ${target.file}${target.profile === undefined ? '' : ` (nor in its [profile.${target.profile}])`}`);
  return `${shown(chosen.value)}\n`;
}

/** `config set KEY VALUE`: the line of KEY in the table (the profile's, else the top level) replaced or added; the file written atomically. */
export async function configSet(target: ConfigTarget, key: string, text: string, fs?: FileSystem): Promise<void> {
  const setting = known(key, target.file);
  const value = setting.check(setting.fromText(text));
  if (value === undefined) throw new UsageError(`${key} is ${setting.rule}, not '${maskedPasswords(text)}'`);
  if (target.profile !== undefined && !PROFILE_NAME.test(target.profile)) {
    throw new UsageError(`--profile ${target.profile}: a profile's name is letters, digits, - and _`);
  }
  const before = read(target.file);
  const after = setInText(before.text, table(target), key, tomlValue(value));
  checkEdit(after, target, key, value);
  await writeConfigText(target.file, after, fs);
}

/** `config unset KEY`: the line of KEY in the table removed; false when it had none (nothing is written). */
export async function configUnset(target: ConfigTarget, key: string, fs?: FileSystem): Promise<boolean> {
  known(key, target.file);
  const before = read(target.file);
  const after = unsetInText(before.text, table(target), key);
  if (after === undefined) return false;
  checkEdit(after, target, key, undefined);
  await writeConfigText(target.file, after, fs);
  return true;
}

/**
 * `config edit`: the file in $VISUAL, else $EDITOR, else vi; a file not there
 * yet is made first (private, with every setting in a comment). What the
 * editor leaves is checked as a run would read it.
 */
export async function configEdit(file: string, env: Env, fs?: FileSystem): Promise<void> {
  if (readConfigText(file) === undefined) await writeConfigText(file, TEMPLATE, fs);
  const editor = env.VISUAL || env.EDITOR || 'vi';
  let code: number | null;
  try {
    code = await runEditor(editor, file, env);
  } catch (err) {
    throw new RunError(`cannot run the editor '${editor}': ${(err as Error).message}`);
  }
  if (code !== 0) throw new RunError(`the editor '${editor}' exited with ${code ?? 'a signal'}: ${file} is as it left it`);
  read(file);
}

const TEMPLATE = `# tenders settings: the defaults of its global flags ('tenders help config').
# A flag, then an environment variable, beat what is here; a profile
# (--profile NAME or TENDERS_PROFILE) beats the top level.
${SETTING_KEYS.map((k) => `# ${k.key}: ${k.rule}`).join('\n')}

# base-url = "https://tenders.example.org"

# [profile.work]
# base-url = "https://tenders.internal.example"
# db = "postgres://me@db.example/tenders"
`;

function known(key: string, file: string): SettingKey {
  const setting = settingKey(key);
  if (!setting) throw unknownKey(key, `${file}: `);
  return setting;
}

function checkProfile(settings: Settings, profile: string): void {
  if (!Object.hasOwn(settings.profiles, profile)) {
    const names = Object.keys(settings.profiles);
    throw new UsageError(`${settings.file} has no [profile.${profile}]${names.length ? `: its profiles are ${names.join(', ')}` : ''}`);
  }
}

const table = (target: ConfigTarget) => (target.profile === undefined ? undefined : `profile.${target.profile}`);

/** The edited text, parsed: it must say KEY is `value` in the table, or nothing is written. */
function checkEdit(text: string, target: ConfigTarget, key: string, value: SettingValue | undefined): void {
  const refusal = new UsageError(`${target.file} sets ${key} in a way 'tenders config' does not edit (a dotted key or an inline table): change it with 'tenders config edit'`);
  let settings: Settings;
  try {
    settings = parseSettings(text, target.file);
  } catch {
    throw refusal; // the file was read before the edit: the edit is what went wrong
  }
  const values = target.profile === undefined ? settings.top : settings.profiles[target.profile];
  if (values?.[key] !== value) throw refusal;
}
