import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runShell } from '../support/cli.js';
import { useSandbox } from '../support/sandbox.js';
import { testDir } from '../support/test-context.js';
import { requireTool } from '../support/tools.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
/** The README's line that starts so (in a code block), as written. */
const line = (start: string) => README.split('\n').find((l) => l.startsWith(start))!;

// A sandbox as a user starts it: as of today.
const sb = useSandbox({ today: Math.floor(Date.now() / 86_400_000) * 86_400_000 });
const hasSqlite = requireTool('sqlite3', 'apt-get install sqlite3');

describe.skipIf(!hasSqlite)("the README's local copy, as written, against the sandbox", () => {
  it('its search finds tenders, and its sqlite3 count is the count of the tenders the copy holds (not the gone ones)', async () => {
    const db = join(testDir(), 'tenders.db');
    const env = { TENDERS_DB: db };
    const sync = line('tenders sync deu-open ').replace(/#.*$/, '').trim().split(/\s+/).slice(1);
    expect((await runCli(sync, sb.url, { env })).code).toBe(0);
    const search = line('tenders search --local ').replace(/#.*$/, '').replace(/^tenders/, '$TENDERS');
    const found = await runShell(`${search} -f ndjson`, sb.url, { env });
    expect(found.code).toBe(0);
    expect(found.stdout.trim().split('\n').length).toBeGreaterThan(0);
    expect(found.stdout).toMatch(/^\{"id":"T-/);
    // Some tenders go; the copy keeps them as gone, and the README's sqlite3 count leaves them out.
    sb.mutate({ remove: 20, close: 10, seed: 3 });
    expect((await runCli(['sync', 'deu-open'], sb.url, { env })).code).toBe(0);
    const query = /"(SELECT [^"]+)"/.exec(line('sqlite3 ~/.local/share/tenders/tenders.db'))![1]!;
    const counted = execFileSync('sqlite3', [db, query], { encoding: 'utf8' }).trim().split('\n').map((row) => Number(row.split('|')[1]));
    const local = await runCli(['count', '--local'], sb.url, { env });
    expect(counted.reduce((a, b) => a + b, 0)).toBe(Number(local.stdout.trim().replace(/,/g, '')));
  });

  it("says that export writes CSV and search NDJSON into a pipe, as they do", async () => {
    expect(README).toContain('`search` writes NDJSON\ninto a pipe and `export` CSV');
    expect((await runCli(['export', '--max', '1'], sb.url)).stdout).toMatch(/^id,title,/);
    expect((await runCli(['search', '-n', '1'], sb.url)).stdout).toMatch(/^\{"id":/);
  });
});
