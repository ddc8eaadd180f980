import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopPostgres } from './postgres.js';

/**
 * One temporary directory for a whole test run: every test's mkdtemp(tmpdir())
 * and every spawned CLI's temporary files land in it (TMPDIR is inherited by
 * the workers and their children), and it is removed when the run ends.
 */
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'tenders-tests-'));
  chmodSync(root, 0o755); // as /tmp is reachable: tests that run the CLI as another user need it
  process.env.TMPDIR = root;
  return () => {
    stopPostgres(root); // the cluster a test started, if one did
    rmSync(root, { recursive: true, force: true });
  };
}
