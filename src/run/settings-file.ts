import { parse, TomlError } from 'smol-toml';
import { UsageError } from '../errors.js';
import { PROFILE_NAME, SETTING_NAMES, settingKey, type Settings, type SettingValue, type SettingValues } from '../model/settings.js';
import { withoutPasswords } from '../model/redact.js';
import { closeMatches } from '../model/close-match.js';

/**
 * The config file's text → its settings, checked: a file that is not TOML is
 * exit 2 at its line and column; an unknown key names the closest known one;
 * a value of the wrong type names its key and the rule.
 */
export function parseSettings(text: string, file: string): Settings {
  let doc: Record<string, unknown>;
  try {
    doc = parse(text);
  } catch (err) {
    if (!(err instanceof TomlError)) throw err;
    const reason = err.message.replace(/^Invalid TOML document: /, '').split('\n')[0];
    throw new UsageError(`${file}:${err.line}:${err.column}: not TOML: ${reason}`);
  }
  const { profile, ...top } = doc;
  const profiles: Record<string, SettingValues> = {};
  if (profile !== undefined) {
    if (!isTable(profile)) throw new UsageError(`${file}: profile is a table of profiles, [profile.NAME], not a value`);
    for (const [name, table] of Object.entries(profile)) {
      if (!PROFILE_NAME.test(name)) throw new UsageError(`${file}: [profile.${name}]: a profile's name is letters, digits, - and _`);
      if (!isTable(table)) throw new UsageError(`${file}: profile.${name} is a table of settings, [profile.${name}], not a value`);
      profiles[name] = checkTable(table, file, `[profile.${name}]: `);
    }
  }
  return { file, top: checkTable(top, file, ''), profiles };
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function checkTable(table: Record<string, unknown>, file: string, where: string): SettingValues {
  const values: SettingValues = {};
  for (const [key, value] of Object.entries(table)) values[key] = checkSetting(key, value, `${file}: ${where}`);
  return values;
}

/** One setting's value as the file may hold it; `at` prefixes the message of a bad one. */
function checkSetting(key: string, value: unknown, at: string): SettingValue {
  const known = settingKey(key);
  if (!known) throw unknownKey(key, at);
  const checked = known.check(value);
  if (checked === undefined) throw new UsageError(`${at}${key} is ${known.rule}, not ${shown(value)}`);
  return checked;
}

/** An unknown setting, with the closest known one. */
export function unknownKey(key: string, at: string): UsageError {
  const [close] = closeMatches(key, SETTING_NAMES, 1);
  const advice = close ? `did you mean ${close}?` : `the settings are ${SETTING_NAMES.join(', ')}`;
  return new UsageError(`${at}unknown setting '${key}': ${advice}`);
}

function shown(value: unknown): string {
  if (isTable(value)) return 'a table';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'string' ? JSON.stringify(withoutPasswords(value)) : String(value);
}
