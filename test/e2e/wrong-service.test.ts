import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { runCli } from '../support/cli.js';
import { PYTHON } from '../support/python-csv.js';

/** A base URL that reaches another web server, or the service at a wrong path. */
let python: ChildProcess;
let pythonUrl: string;
let sb: Sandbox;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tenders-wrong-service-'));
  sb = await startSandbox({ size: 50, seed: 3 });
  python = spawn(PYTHON, ['-u', '-m', 'http.server', '--bind', '127.0.0.1', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
  pythonUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    python.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const port = /port (\d+)/.exec(out)?.[1];
      if (port) resolve(`http://127.0.0.1:${port}`);
    });
    python.on('exit', () => reject(new Error(`python3 -m http.server ended: ${out}`)));
  });
});
afterAll(async () => {
  python?.kill();
  await sb?.close();
  await rm(root, { recursive: true, force: true });
});

describe('a base URL that does not lead to the tender service', () => {
  it('another web server (python3 -m http.server, 501 HTML): its page said by title, and the base-URL question', async () => {
    const r = await runCli(['search', '--retries', '0'], pythonUrl);
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toBe(
      'tenders: the service answered 501 to POST /api/v1/tenders/search: an HTML page ("Error response"): ' +
        `this does not look like the tender service: is the base URL right? (it is ${pythonUrl})\n`,
    );
  });

  it('a wrong path: the 404 asks whether the base URL is right', async () => {
    const r = await runCli(['count'], `${sb.url}/wrong`);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `tenders: the service answered 404 to POST /api/v1/tenders/search: not found: /wrong/api/v1/tenders/search: is the base URL right? (it is ${sb.url}/wrong)\n`,
    );
  });

  it('a base URL holding the endpoint (copied from the spec) is used without it, said with --verbose', async () => {
    const r = await runCli(['count', '-v'], `${sb.url}/api/v1/tenders/search`);
    expect(r).toMatchObject({ code: 0, stdout: '50\n' });
    expect(r.stderr.split('\n')[0]).toBe(`* the base URL ends in /api/v1/tenders/search, which the CLI adds to every path itself: using ${sb.url}`);
    expect((await runCli(['count'], `${sb.url}/api/v1/organisations/search/`)).stdout).toBe('50\n');
  });
});
