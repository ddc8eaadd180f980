import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cliEnv, runProcess } from '../support/cli.js';
import { hasScript } from '../support/terminal.js';
import { testDir, testSignal } from '../support/test-context.js';

/** `npm run demo`, as the README's set-up runs it: scripts/demo.js on the built CLI. */
const DEMO = fileURLToPath(new URL('../../scripts/demo.js', import.meta.url));
/** Its temporary files go to this test's directory. */
const demoEnv = () => cliEnv(undefined, { TMPDIR: testDir() });
const leftovers = () => readdirSync(testDir()).filter((name) => name.startsWith('tenders-demo-'));

/** Resolves with the page's URL once the demo's output (read from OUT) printed it. */
function pageUrl(child: ChildProcess, stdout: NodeJS.ReadableStream): Promise<{ page: string; out: () => string }> {
  let out = '';
  return new Promise((resolve, reject) => {
    stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const page = /^The page: (\S+)/m.exec(out)?.[1];
      if (page !== undefined) resolve({ page, out: () => out });
    });
    child.once('exit', (code) => reject(new Error(`the demo exited (${code}) before serving:\n${out}`)));
  });
}

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
    // --serve: as at a terminal, whose stdin this test's process is not (the next test has one).
    const run = runProcess(process.execPath, [DEMO, '--serve'], { env: demoEnv(), onSpawn: (c) => (child = c) });
    run.catch(() => undefined); // a failed expectation below ends the test, and the run with it: awaited or not
    const { page, out: printed } = await pageUrl(child!, child!.stdout!);
    const out = printed();
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

  it.skipIf(!hasScript)('at a terminal (a pseudo-terminal): serves without being asked, and Ctrl-C typed there ends it with 0', async () => {
    // util-linux script gives the demo a pty; what we write to script's stdin is typed on it.
    const child = spawn('script', ['-qec', `stty cols 120 rows 40; exec '${process.execPath}' '${DEMO}'`, '/dev/null'], { env: demoEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    testSignal()?.addEventListener('abort', () => child.kill('SIGKILL'), { once: true });
    const exited = once(child, 'exit');
    const { page, out } = await pageUrl(child, child.stdout);
    const sandbox = /^Sandbox service running at (\S+)/m.exec(out())![1]!;
    expect((await fetch(page)).status).toBe(200);

    child.stdin.write('\x03'); // Ctrl-C: the pty's line discipline signals its foreground group
    const [code] = (await exited) as [number | null];
    expect(code, out()).toBe(0);
    expect(await answers(page)).toBe(false);
    expect(await answers(sandbox)).toBe(false);
    expect(leftovers()).toEqual([]);
  });

  it.skipIf(!hasScript)('at a terminal with --no-serve: the short demo, then it stops', async () => {
    const r = await runProcess('script', ['-qec', `stty cols 120 rows 40; exec '${process.execPath}' '${DEMO}' --no-serve`, '/dev/null'], { env: demoEnv() });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/rows \(the count above\) and a header/);
    expect(r.stdout).not.toContain('The page:');
    expect(leftovers()).toEqual([]);
  });
});
