import { stripVTControlCharacters } from 'node:util';

// C0/C1 controls left after stripping escape sequences (BEL, lone ESC, CSI as
// U+009B...), and bidirectional overrides that reorder what the terminal shows.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g;

/** Text from the service made safe and single-line for a terminal cell. */
export function sanitizeForTerminal(text: string): string {
  return stripVTControlCharacters(text).replace(CONTROL, ' ').trim();
}
