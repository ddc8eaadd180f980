import type { IO } from '../../io.js';
import { escapeControls } from './sanitize.js';

/** Everything that is not data goes to stderr, through here. */
export interface Reporter {
  /** Hints for a person: only on a terminal or with --verbose, never with --quiet. */
  hint(line: string): void;
  /** Something the user should know even in cron mail; --quiet hides it. */
  warn(line: string): void;
  /** --verbose detail: one line per HTTP request, summaries. */
  debug(line: string): void;
  /** Whether debug lines are shown: build costly ones only then. */
  verbose: boolean;
}

export function createReporter(io: IO, opts: { quiet: boolean; verbose: boolean }): Reporter {
  // Hints and warnings carry text from the service (a cursor, a field name): spelled out, one line.
  const write = (line: string) => {
    io.stderr.write(`${escapeControls(line)}\n`);
  };
  const hints = !opts.quiet && (io.stderrIsTTY || opts.verbose);
  return {
    hint: hints ? write : () => {},
    warn: opts.quiet ? () => {} : (line) => write(`tenders: warning: ${line}`),
    debug: opts.verbose ? (line) => write(`* ${line}`) : () => {},
    verbose: opts.verbose,
  };
}
