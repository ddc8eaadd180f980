import type { ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cliEnv, runProcess } from '../support/cli.js';
import { testDir } from '../support/test-context.js';

/** `npm run demo`, as the README's set-up runs it: scripts/demo.js on the built CLI. */
const DEMO = fileURLToPath(new URL('../../scripts/demo.js', import.meta.url));
/** Its temporary files go to this test's directory. */
const demoEnv = () => cliEnv(undefined, { TMPDIR: testDir() });
const leftovers = () => readdirSync(testDir()).filter((name) => name.startsWith('tenders-demo-'));

/** Whether anything still answers at URL. */
const answers = (url: string) => fetch(url).then(() => true, () => false);
/** stderr holds the sandbox's ready line and nothing else: no error, no access log. */
const onlySandboxLine = (stderr: string) => expect(stderr).toMatch(/^tenders-sandbox: 5000 tenders .* ready in \d+ ms\n$/);

describe('npm run demo', () => {
  it('with a stdin that is no terminal (CI, a pipe): the short demo, a search, a count and an export, then it stops', async () => {
    const r = await runProcess(process.execPath, [DEMO], { env: demoEnv() });
    onlySandboxLine(r.stderr);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/rows \(the count above\) and a header/);
    expect(r.stdout).not.toContain('tenders sync');
    expect(r.stdout).not.toContain('The page:');
    expect(leftovers()).toEqual([]);
    const sandbox = /^Sandbox service running at (\S+)/m.exec(r.stdout)![1]!;
    expect(await answers(sandbox)).toBe(false);
  });

  it('serving: syncs a copy twice, serves the page over it and prints its URL; Ctrl-C stops the server and the sandbox, removes its files and exits 0', async () => {
    let child: ChildProcess | undefined;
    let out = '';
    // --serve: as at a terminal, whose stdin this test cannot be.
    const run = runProcess(process.execPath, [DEMO, '--serve'], { env: demoEnv(), onSpawn: (c) => (child = c) });
    run.catch(() => undefined); // a failed expectation below ends the test, and the run with it: awaited or not
    const page = await new Promise<string>((resolve, reject) => {
      child!.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const url = /^The page: (\S+)/m.exec(out)?.[1];
        if (url !== undefined) resolve(url);
      });
      child!.once('exit', (code) => reject(new Error(`the demo exited (${code}) before serving:\n${out}`)));
    });
    const sandbox = /^Sandbox service running at (\S+)/m.exec(out)![1]!;
    expect(out).toContain('$ tenders sync demo --db ');

    const search = await fetch(page);
    expect(search.status).toBe(200);
    // 5 000, 5 new and 2 gone: the copy of the second sync.
    expect(await search.text()).toMatch(/<strong>5,003 tenders<\/strong> match/);
    // The tender it names has a history: the second sync saw it change.
    const tender = /a tender's history at (\S+),/.exec(out)![1]!;
    const history = await (await fetch(tender)).text();
    expect(history).toContain('class="timeline"');
    expect(history).toMatch(/→/);
    const changes = await (await fetch(new URL('/changes', page))).text();
    expect(changes).toMatch(/changed/i);

    // Ctrl-C at a terminal: SIGINT to the whole foreground process group.
    process.kill(-child!.pid!, 'SIGINT');
    const r = await run;
    onlySandboxLine(r.stderr);
    expect(r.code).toBe(0);
    expect(await answers(page)).toBe(false);
    expect(await answers(sandbox)).toBe(false);
    expect(leftovers()).toEqual([]);
  });
});
