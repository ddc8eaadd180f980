import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopPostgres } from './postgres.js';
import { MISSING_TOOLS_DIR } from './tools.js';

/**
 * One temporary directory for a whole test run: every test's own directory
 * (test/support/test-context.ts), every mkdtemp(tmpdir()) and every spawned
 * CLI's temporary files land in it (TMPDIR is inherited by the workers and
 * their children), and it is removed when the run ends. Before that, one
 * line names the tools whose tests were skipped (test/support/tools.ts).
 *
 * No process of the run inherits NODE_EXTRA_CA_CERTS: Node reads and parses
 * that bundle at every start (about 0.1 CPU-second for a system bundle, paid
 * by each worker and each of the ~500 CLIs the suite spawns), and no test
 * trusts a certificate through it except the one it names itself
 * (test/e2e/proxy.test.ts).
 */
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'tenders-tests-'));
  chmodSync(root, 0o755); // as /tmp is reachable: tests that run the CLI as another user need it
  mkdirSync(join(root, MISSING_TOOLS_DIR));
  process.env.TMPDIR = root;
  delete process.env.NODE_EXTRA_CA_CERTS;
  process.env.TENDERS_TEST_RUN_DIR = root;
  return () => {
    const line = missingToolsLine(join(root, MISSING_TOOLS_DIR));
    if (line) process.stderr.write(`${line}\n`);
    stopPostgres(root); // the cluster a test started, if one did
    rmSync(root, { recursive: true, force: true });
  };
}

/** "skipped the tests that need fish, zsh: apt-get install fish zsh", or '' when nothing was missing. */
function missingToolsLine(dir: string): string {
  const tools = readdirSync(dir).sort();
  if (tools.length === 0) return '';
  const installs = [...new Set(tools.map((tool) => readFileSync(join(dir, tool), 'utf8')))];
  const apt = 'apt-get install ';
  const how = installs.every((i) => i.startsWith(apt))
    ? `${apt}${[...new Set(installs.flatMap((i) => i.slice(apt.length).split(/\s+/)))].join(' ')}`
    : installs.join('; ');
  return `tenders tests: skipped the tests that need ${tools.join(', ')}; to run them: ${how}`;
}
