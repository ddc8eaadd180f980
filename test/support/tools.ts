import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where requireTool notes a missing tool for the run's one closing line (test/support/global-tmp.ts). */
export const MISSING_TOOLS_DIR = 'missing-tools';

const present = new Map<string, boolean>();

/**
 * Whether the program `name` is on PATH, for `it.skipIf(!requireTool(...))`.
 * When it is not, the run ends with one line naming every missing tool and
 * how to install it (`install`, e.g. 'apt-get install zsh'), instead of a
 * line per skipped test.
 *
 *   const hasZsh = requireTool('zsh', 'apt-get install zsh');
 *   it.skipIf(!hasZsh)('zsh: ...', ...);
 */
export function requireTool(name: string, install: string): boolean {
  let found = present.get(name);
  if (found === undefined) {
    found = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', name], { stdio: 'ignore' }).status === 0;
    present.set(name, found);
    if (!found) noteMissingTool(name, install);
  }
  return found;
}

/** A file per missing tool in the run's directory; the global teardown reads them (for tools not found on PATH, as PostgreSQL's). */
export function noteMissingTool(name: string, install: string): void {
  const run = process.env.TENDERS_TEST_RUN_DIR;
  if (run === undefined) return;
  try {
    writeFileSync(join(run, MISSING_TOOLS_DIR, name.replace(/[^\w.+-]/g, '_')), install);
  } catch {
    // Outside a vitest run (an editor's test runner): the skip itself says enough.
  }
}
