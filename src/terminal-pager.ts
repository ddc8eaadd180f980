import type { Env } from './io.js';

/** A running pager: what goes into `input` shows on the terminal; `exited` settles when the user quits it. */
export interface PagerProcess {
  input: NodeJS.WritableStream;
  exited: Promise<void>;
}

/** Starts `command` with the terminal as its output; rejects when it cannot be started. */
export type PagerLauncher = (command: string, env: Env) => Promise<PagerProcess>;

/** less without options of its own: quit when the text fits one screen, keep colours, leave the text on screen (as gh and git do). */
const LESS_DEFAULTS = 'FRX';

/** The pager to use: $TENDERS_PAGER, else $PAGER, else `less -FRX`; none when that is empty or `cat`. */
export function pagerCommand(env: Env): string | undefined {
  const command = (env.TENDERS_PAGER ?? env.PAGER ?? `less -${LESS_DEFAULTS}`).trim();
  return command === '' || command === 'cat' ? undefined : command;
}

/** The environment a pager gets: $LESS and $LV as gh sets them, unless the user has. */
export function pagerEnv(env: Env): Env {
  return { ...env, LESS: env.LESS ?? LESS_DEFAULTS, LV: env.LV ?? '-c' };
}

// A command with none of these runs without a shell (so a missing one is an error we see), as git does.
const SHELL_SYNTAX = /[|&;<>()$`\\"'*?[#~=%\n]/;

/** Runs the pager as a child process writing to this process's stdout and stderr. */
export const spawnPager: PagerLauncher = async (command, env) => {
  const { spawn } = await import('node:child_process');
  const [file, ...args] = SHELL_SYNTAX.test(command) ? ['/bin/sh', '-c', command] : command.split(/[ \t]+/);
  const child = spawn(file!, args, { stdio: ['pipe', 'inherit', 'inherit'], env: { ...env } });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  // The user quitting the pager early shows up as EPIPE on the output, which ends the run quietly.
  child.stdin.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return { input: child.stdin, exited };
};
