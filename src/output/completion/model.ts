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
}

export interface CompletionCommand {
  /** Words from the program to this command: [] for the program, ['orgs', 'tenders']. */
  path: string[];
  description: string;
  /** Its own options and those of the commands above it, which are accepted here too. */
  options: CompletionOption[];
  subcommands: { name: string; description: string }[];
  /** Values its positional arguments can take (`completion bash`, `help search`). */
  positionals: string[];
}

export interface CompletionModel {
  program: string;
  /** Every command, the program first. */
  commands: CompletionCommand[];
}

/** The key a script finds a command under: its path joined by spaces ('' for the program). */
export const pathKey = (command: Pick<CompletionCommand, 'path'>): string => command.path.join(' ');
