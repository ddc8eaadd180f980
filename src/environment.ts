/**
 * Every environment variable the CLI reads, in one place: `tenders help
 * environment` prints this list, and a test checks that each `env.X` read in
 * src/ is on it.
 */
export interface EnvironmentVariable {
  /** The variable and its alternative spellings, read in this order. */
  names: readonly string[];
  description: string;
}

export const ENVIRONMENT: readonly EnvironmentVariable[] = [
  { names: ['TENDERS_BASE_URL'], description: "the service's base URL when --base-url is not given, e.g. https://tenders.example.org" },
  { names: ['TENDERS_CONFIG'], description: 'the config file, whose settings are the defaults of the global flags (default $XDG_CONFIG_HOME/tenders/config.toml; tenders help config)' },
  { names: ['TENDERS_PROFILE'], description: 'the [profile.NAME] of the config file to take defaults from when --profile is not given' },
  { names: ['XDG_CONFIG_HOME'], description: 'the base of the default config file (default ~/.config)' },
  { names: ['VISUAL', 'EDITOR'], description: 'the editor tenders config edit opens (default vi)' },
  { names: ['HTTP_PROXY', 'http_proxy'], description: 'the proxy for http:// services (and for https:// ones without HTTPS_PROXY); USER:PASSWORD@ in it is sent as Proxy-Authorization' },
  { names: ['HTTPS_PROXY', 'https_proxy'], description: 'the proxy for https:// services (a CONNECT tunnel)' },
  { names: ['NO_PROXY', 'no_proxy'], description: 'hosts (and domain suffixes, optionally with :port) reached without a proxy, comma-separated' },
  { names: ['TENDERS_ORGS_SEARCH_PATH'], description: 'the path of Search Organisations (default /api/v1/organisations/search); orgs search --path wins' },
  { names: ['TENDERS_ORG_TENDERS_PATH'], description: "the path of an organisation's tenders, {id} for its id (default /api/v1/organisations/{id}/tenders/search)" },
  { names: ['TENDERS_CPV_PATHS'], description: "where tenders' CPV codes are when --cpv-paths is not given: comma-separated dot paths (default cpvCodes,cpv)" },
  { names: ['TENDERS_SORT_PATHS'], description: 'with --parallel: where results hold their sort values, FIELD=PATH,... as --sort-path takes them' },
  { names: ['TENDERS_STATE_DIR'], description: 'where watches keep their state files (default $XDG_STATE_HOME/tenders/watches); a TENDERS_DB naming a postgres:// copy keeps them there instead' },
  { names: ['TENDERS_WEBHOOK'], description: 'watch: the webhook URLs to POST changes to when --webhook is not given, separated by spaces' },
  { names: ['XDG_STATE_HOME'], description: 'the base of the default state directory (default ~/.local/state)' },
  { names: ['TENDERS_DB'], description: "the local copy when --db is not given: a SQLite file, or a postgres:// URL, which also keeps watches' state (default $XDG_DATA_HOME/tenders/tenders.db)" },
  { names: ['TENDERS_DB_SCHEMA'], description: 'with a postgres:// copy: the schema its tables live in (a ?schema= in the URL wins)' },
  { names: ['PGHOST'], description: 'with a postgres:// copy: the server when the URL names none (default localhost; a directory: its Unix socket)' },
  { names: ['PGPORT'], description: "with a postgres:// copy: the server's port when the URL names none (default 5432)" },
  { names: ['PGUSER'], description: 'with a postgres:// copy: the user when the URL names none (default: your login name)' },
  { names: ['PGPASSWORD'], description: 'with a postgres:// copy: the password when the URL has none (never printed; ~/.pgpass is better)' },
  { names: ['PGDATABASE'], description: 'with a postgres:// copy: the database when the URL names none (default: the user\'s name)' },
  { names: ['PGSSLMODE'], description: 'with a postgres:// copy: TLS when the URL has no sslmode: disable, or prefer, require, verify-ca, verify-full (TLS), no-verify' },
  { names: ['PGPASSFILE'], description: 'with a postgres:// copy: the password file read when no password is given (default ~/.pgpass, mode 0600)' },
  { names: ['XDG_DATA_HOME'], description: 'the base of the default local copy (default ~/.local/share)' },
  { names: ['TMPDIR'], description: "where a watch kept in a postgres:// copy writes its work files while it runs (default /tmp)" },
  { names: ['HOME'], description: 'the home directory, for ~/.config, ~/.local/state and ~/.local/share when the XDG variables are not set' },
  { names: ['NO_COLOR'], description: 'set and not empty: no colour (--color always still colours)' },
  { names: ['FORCE_COLOR'], description: 'colour even when not on a terminal; 0 or false: never (--color wins over both)' },
  { names: ['TERM'], description: 'dumb: no colour, no spinner, no pager' },
  { names: ['COLUMNS'], description: "the table's width when stdout is not a terminal (a terminal's own width wins)" },
  { names: ['TENDERS_PAGER', 'PAGER'], description: 'the pager for terminal output (default less -FRX); empty or cat: none' },
  { names: ['PATH'], description: "whether tenders was run from PATH: the next-page hint then starts 'tenders', else as it was run" },
  { names: ['npm_command', 'npm_lifecycle_script'], description: "set by npx (exec, 'tenders'): the next-page hint then starts 'npx tenders'" },
  { names: ['LESS', 'LV'], description: 'options for the pagers less and lv (default FRX and -c, as gh sets them)' },
];

