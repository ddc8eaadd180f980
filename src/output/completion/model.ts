/** What shell completion knows of the CLI: read from the commander program, so every command and flag is in it. */

export interface CompletionOption {
  /** `-f`, `--format`: each spelling. */
  names: string[];
  description: string;
  /** It takes a value (the next word, or after `=`). */
  takesValue: boolean;
  /** The values it accepts (`argChoices`); empty when any. */
  choices: string[];
  /** Its value is a file name (the placeholder is `<file>`). */
  file: boolean;
  /** Its value is the name of a saved sync or watch, which the script asks the program for (`--list`) when completing. */
  saved?: SavedKind;
}

/** What a saved name names: `tenders sync --list` or `tenders watch --list` lists them; `config list` the profiles (`profile.NAME.KEY=…`). */
export type SavedKind = 'sync' | 'watch' | 'profile';

/** The words a completion script runs to list the saved names of a kind, one a line. */
export const listSaved = (program: string, kind: SavedKind): string =>
  kind === 'profile'
    ? `${program} config list 2>/dev/null | sed -n 's/^profile\\.\\([^.=]*\\)\\..*/\\1/p' | sort -u`
    : `${program} ${kind} --list -f tsv --columns name --no-header 2>/dev/null`;

export interface CompletionCommand {
  /** Words from the program to this command: [] for the program, ['orgs', 'tenders']. */
  path: string[];
  description: string;
  /** Its own options and those of the commands above it, which are accepted here too. */
  options: CompletionOption[];
  subcommands: { name: string; description: string }[];
  /** Values its positional arguments can take (`completion bash`, `help search`). */
  positionals: string[];
  /** Its positional is the name of a saved sync or watch (`sync NAME`, `changes NAME`). */
  saved?: SavedKind;
}

export interface CompletionModel {
  program: string;
  /** Every command, the program first. */
  commands: CompletionCommand[];
}

/** The key a script finds a command under: its path joined by spaces ('' for the program). */
export const pathKey = (command: Pick<CompletionCommand, 'path'>): string => command.path.join(' ');
