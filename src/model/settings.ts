/**
 * The settings a config file may hold: the default of a global flag each
 * (and --db's), at the top level or in a [profile.NAME] table. A setting is
 * beaten by its flag and by its environment variables; a profile's by
 * nothing else in the file. docs/settings.md is the user's account of it.
 */

import { CPV_PATHS_RULE, parseCpvPaths } from './cpv.js';

export type SettingValue = string | number | boolean;
export type SettingValues = Partial<Record<string, SettingValue>>;

/** A config file, read and checked: its top-level settings and its profiles'. */
export interface Settings {
  file: string;
  top: SettingValues;
  profiles: Readonly<Record<string, SettingValues>>;
}

export interface SettingKey {
  /** As the file and `tenders config` spell it, and as its flag does (--max-wait). */
  key: string;
  /** The flag's value in commander's options (maxWait). */
  option: string;
  /** Variables that, when set and not empty, beat the file. */
  variables: readonly string[];
  /** What a value must be, said when it is not. */
  rule: string;
  /** The value as the file holds it, or undefined when it breaks the rule. */
  check(value: unknown): SettingValue | undefined;
  /** The value as typed after `tenders config set KEY`, in the type the file holds. */
  fromText(text: string): unknown;
}

/** The most requests per second --rate takes, and the largest --max-wait (a day, in seconds): the flags' rules and the file's. */
export const RATE_MAX = 10_000;
export const MAX_WAIT_MAX_S = 86_400;

/** A rate as typed (`2`, `0.5`, `.1`) as a number; NaN for anything else. */
export function rateOf(text: string): number {
  return /^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(text) ? Number(text) : NaN;
}

function wholeNumber(min: number, max: number) {
  return {
    check: (value: unknown) => (typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max ? value : undefined),
    fromText: (text: string) => (/^\s*\d+\s*$/.test(text) ? Number(text) : text),
  };
}

/** A setting the file holds as a string takes the typed text as it is. */
const asText = {
  fromText: (value: string) => value,
};

export const SETTING_KEYS: readonly SettingKey[] = [
  {
    key: 'base-url',
    option: 'baseUrl',
    variables: ['TENDERS_BASE_URL'],
    rule: "the service's http:// or https:// URL, in quotes",
    check: (value) => (typeof value === 'string' && /^https?:\/\/./i.test(value.trim()) && URL.canParse(value.trim()) ? value : undefined),
    ...asText,
  },
  {
    key: 'db',
    option: 'db',
    variables: ['TENDERS_DB'],
    rule: 'the local copy, in quotes: a SQLite file or a postgres:// URL',
    check: (value) => (typeof value === 'string' && value.trim() !== '' ? value : undefined),
    ...asText,
  },
  {
    key: 'rate',
    option: 'rate',
    variables: [],
    rule: `requests per second, a number above 0 and at most ${RATE_MAX} such as 2 or 0.5`,
    check: (value) => (typeof value === 'number' && value > 0 && value <= RATE_MAX ? value : undefined),
    fromText: (value) => (Number.isNaN(rateOf(value)) ? value : rateOf(value)),
  },
  { key: 'retries', option: 'retries', variables: [], rule: 'a whole number from 0 to 100', ...wholeNumber(0, 100) },
  { key: 'timeout', option: 'timeout', variables: [], rule: 'a whole number of milliseconds, 1 or more', ...wholeNumber(1, Number.MAX_SAFE_INTEGER) },
  { key: 'max-wait', option: 'maxWait', variables: [], rule: `a whole number of seconds from 0 to ${MAX_WAIT_MAX_S}`, ...wholeNumber(0, MAX_WAIT_MAX_S) },
  {
    key: 'color',
    option: 'color',
    // They say what the user wants of colour as the flag does, so they beat the file.
    variables: ['NO_COLOR', 'FORCE_COLOR'],
    rule: '"auto", "always" or "never"',
    check: (value) => (value === 'auto' || value === 'always' || value === 'never' ? value : undefined),
    ...asText,
  },
  {
    key: 'pager',
    option: 'pager',
    variables: [],
    rule: 'true or false (the pager itself is TENDERS_PAGER or PAGER)',
    check: (value) => (typeof value === 'boolean' ? value : undefined),
    fromText: (value) => (value === 'true' ? true : value === 'false' ? false : value),
  },
  {
    key: 'cpv-paths',
    option: 'cpvPaths',
    variables: ['TENDERS_CPV_PATHS'],
    rule: `where a tender's CPV codes are, in quotes: ${CPV_PATHS_RULE}`,
    check: (value) => (typeof value === 'string' && parseCpvPaths(value) !== undefined ? value : undefined),
    ...asText,
  },
];

export const SETTING_NAMES = SETTING_KEYS.map((k) => k.key);

export function settingKey(name: string): SettingKey | undefined {
  return SETTING_KEYS.find((k) => k.key === name);
}

/** Where a value came from, as --verbose says it. */
interface ChosenSetting {
  value: SettingValue;
  from: string;
}

/** KEY's value in the file for `profile` (its table, else the top level); undefined when the file has none. */
export function chosenSetting(settings: Settings, profile: string | undefined, key: string): ChosenSetting | undefined {
  const own = profile === undefined ? undefined : settings.profiles[profile]?.[key];
  if (own !== undefined) return { value: own, from: `[profile.${profile}] of ${settings.file}` };
  const top = settings.top[key];
  return top === undefined ? undefined : { value: top, from: settings.file };
}

/** A value as TOML writes it: strings quoted (JSON's escapes are TOML's), numbers and booleans bare. */
export function tomlValue(value: SettingValue): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** A profile's name as a TOML bare key takes it: letters, digits, - and _. */
export const PROFILE_NAME = /^[A-Za-z0-9_-]{1,64}$/;
