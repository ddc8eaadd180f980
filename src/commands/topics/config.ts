import { SETTING_KEYS } from '../../model/settings.js';
import { items, prose, type HelpTopic } from './topic.js';

export const configTopic: HelpTopic = {
  name: 'config',
  summary: 'the config file: defaults of the global flags, profiles, precedence',
  text: (width) => `The config file

${prose(
  width,
  `$TENDERS_CONFIG, else $XDG_CONFIG_HOME/tenders/config.toml, else ~/.config/tenders/config.toml
  (tenders config path prints it). A TOML file whose settings are the defaults of the global flags and of --db,
  at its top level and in [profile.NAME] tables; --profile NAME or TENDERS_PROFILE picks a profile.`,
)}

  base-url = "https://tenders.example.org"
  timeout = 60000

  [profile.work]
  base-url = "https://tenders.internal.example"
  db = "postgres://me@db.example/tenders"

Settings:
${items(width, SETTING_KEYS.map((k) => [k.key, `${k.rule}${k.variables.length ? ` (beaten by ${k.variables.join(', ')})` : ''}`]))}

${prose(
  width,
  `Precedence: flag > environment variable > profile > top level > built-in default. --verbose says each
  setting a run took from the file, and where, and each the flag or a variable beat. A saved sync or watch uses the service it saved: the file's
  base-url gives way to it, while a --base-url or TENDERS_BASE_URL naming another service is exit 2 unless --reset.`,
  `cpv-paths says where a tender's CPV codes are (default cpvCodes,cpv; lots.cpv reads the cpv of every lot).
  The local copy keeps the codes its last sync read: a sync with another cpv-paths reads every stored tender's
  codes again in its commit, and says so; --local reads and tenders serve use the copy's.`,
  `tenders config list|get KEY|set KEY VALUE|unset KEY|path|edit, with --profile NAME for a profile's table.
  set and unset edit the file's text (comments and order stay) and write it atomically; a new file is mode 600 in a
  directory of mode 700, and an existing file keeps its mode. A password in a URL is printed as ***.`,
  `Exit 2, naming the file: a file that is not TOML (with its line and column), an unknown setting (with the closest
  one), a value that breaks its rule, a profile the file does not have. Nothing is written when a command fails.`,
)}
`,
};
