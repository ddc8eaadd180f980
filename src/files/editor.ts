import type { Env } from '../io.js';

/**
 * Opens `file` in the user's editor, on this terminal, and resolves to its
 * exit code once the user leaves it. The command goes through sh, as git runs
 * $EDITOR, so `code --wait` or `emacs -nw` work as the user wrote them.
 */
export async function runEditor(command: string, file: string, env: Env): Promise<number | null> {
  const { spawn } = await import('node:child_process');
  const child = spawn('/bin/sh', ['-c', `${command} "$1"`, 'editor', file], { stdio: 'inherit', env: { ...env } });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
}
