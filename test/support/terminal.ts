import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { BIN, cliEnv, runProcess, type CliResult } from './cli.js';
import { requireTool } from './tools.js';

/** A directory holding `tenders`, as the README's set-up (`npm link`) puts it on PATH. */
const PATH_DIR = mkdtempSync(join(tmpdir(), 'tenders-path-'));
symlinkSync(BIN, join(PATH_DIR, 'tenders'));

/** Whether util-linux `script` is here to give a child a pseudo-terminal. */
export const hasScript = requireTool('script', 'apt-get install bsdutils');

export type Spawned = CliResult;

/** Spawns without blocking this process (a sandbox in it must answer); ended with the test. */
export function spawnAsync(file: string, args: string[], env: NodeJS.ProcessEnv, stdout: number | 'pipe' = 'pipe'): Promise<Spawned> {
  return runProcess(file, args, { env, stdout });
}

export interface TerminalOptions {
  /** Width of the pseudo-terminal (default 160). */
  cols?: number;
  env?: Record<string, string | undefined>;
}

/**
 * Runs the CLI with stdout and stderr on a pseudo-terminal of `cols` columns
 * (util-linux `script`), as a person would: not under CI, where colour
 * libraries turn colour off. `screen` is what both streams sent the
 * terminal; `text` is its lines without escape sequences (colour, and the
 * keypad modes less switches).
 */
export async function inTerminal(
  baseUrl: string,
  args: string[],
  opts: TerminalOptions = {},
): Promise<{ code: number | null; screen: string; text: string }> {
  const command = ['tenders', ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const r = await shellInTerminal(baseUrl, command, opts);
  return { code: r.code, screen: r.screen, text: stripVTControlCharacters(r.screen).replace(/\r/g, '') };
}

/**
 * Runs a shell command line on the pseudo-terminal, as typed at a prompt:
 * `$TENDERS` runs the built CLI, so `$TENDERS search -n 1 | jq -r .id` is a
 * pipe whose reader prints onto the same terminal.
 */
export async function shellInTerminal(baseUrl: string, commandLine: string, opts: TerminalOptions = {}): Promise<{ code: number | null; screen: string }> {
  const cols = opts.cols ?? 160;
  // A pty starts at 0×0 when we have no terminal ourselves: give it a real size.
  // The pager is less -FRX unless a test says otherwise, whatever the pager of whoever runs the tests.
  const env = {
    ...cliEnv(baseUrl, { CI: undefined, PAGER: undefined, TENDERS_PAGER: undefined, LESS: undefined, ...opts.env }),
    COLUMNS: String(cols),
    LINES: '50',
    TERM: opts.env?.TERM ?? 'xterm',
    // `tenders` from PATH, as a person types it after the README's set-up.
    PATH: [PATH_DIR, dirname(process.execPath), process.env.PATH].join(delimiter),
    TENDERS: 'tenders',
  };
  const r = await spawnAsync('script', ['-qec', `stty cols ${cols} rows 50; ${commandLine}`, '/dev/null'], env);
  return { code: r.code, screen: r.stdout };
}
