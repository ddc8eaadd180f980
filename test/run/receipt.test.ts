import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { lstat, mkdtemp, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClientStats } from '../../src/api/client.js';
import { InterruptedError } from '../../src/errors.js';
import { VERSION } from '../../src/version.js';
import { FakeClient, pagedTenders, type Responder } from '../support/fake-client.js';
import { runInProcess } from '../support/run.js';
import { sandboxResponder } from '../support/sandbox-client.js';

/** A FakeClient that counts what it sent, as the real client does. */
class CountingClient extends FakeClient {
  readonly stats: ClientStats = { requests: 0, retries: {} };
  override post(path: string, body: string, signal?: AbortSignal) {
    this.stats.requests++;
    return super.post(path, body, signal);
  }
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tenders-receipt-'));
});

const run = (argv: string[], respond: Responder, signal?: AbortSignal) =>
  runInProcess(argv, new CountingClient(respond), { signal, env: { TENDERS_BASE_URL: 'http://user:secret@service.test/base' } });

const readJson = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as Record<string, any>;
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('--receipt FILE', () => {
  it('records a complete partitioned export: query, counts, chains and the file\'s SHA-256', async () => {
    const out = join(dir, 'ok.csv');
    const receipt = join(dir, 'ok.receipt.json');
    const argv = ['export', '-c', 'DEU,FRA', '--parallel', '2', '-o', out, '--receipt', receipt];
    const r = await run(argv, sandboxResponder(2000, 3));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const file = await readFile(out);
    const json = await readJson(receipt);
    expect(json).toEqual({
      receipt: 1,
      tool: 'tenders',
      version: VERSION,
      command: 'export',
      argv,
      query: { baseUrl: 'http://service.test/base', path: '/api/v1/tenders/search', body: { limit: 100, buyerCountries: ['DEU', 'FRA'] } },
      parallel: 2,
      startedAt: expect.stringMatching(ISO),
      endedAt: expect.stringMatching(ISO),
      requests: r.client.requests.length,
      retries: {},
      pages: r.client.requests.length,
      rowsWritten: json.expected.count,
      duplicatesDropped: 0,
      csvFieldsDropped: 0,
      expected: { count: expect.any(Number), capped: false },
      partitionedBy: 'country',
      partitions: [
        { value: 'DEU', expected: { count: expect.any(Number), capped: false }, pages: expect.any(Number), complete: true },
        { value: 'FRA', expected: { count: expect.any(Number), capped: false }, pages: expect.any(Number), complete: true },
      ],
      complete: true,
      resumed: null,
      error: null,
      output: { file: out, committed: true, bytes: file.length, sha256: sha256(file) },
    });
    expect(json.partitions[0].expected.count + json.partitions[1].expected.count).toBe(json.expected.count);
    expect(file.toString().trim().split('\n')).toHaveLength(json.rowsWritten + 1);
    expect(Date.parse(json.endedAt)).toBeGreaterThanOrEqual(Date.parse(json.startedAt));
    expect(await readdir(dir)).not.toContain(expect.stringMatching(/\.tmp$/));
  });

  it('records a failed export: the error, exit code 1, not complete, the partial file, and the credentials kept out', async () => {
    const out = join(dir, 'failed.ndjson');
    const receipt = join(dir, 'failed.receipt.json');
    const failing: Responder = (request, n) => (n > 2 ? { status: 200, json: 'garbage' } : pagedTenders(500)(request, n));
    const r = await run(['export', '-f', 'ndjson', '--base-url', 'https://me:pw@service.test', '-o', out, '--receipt', receipt], failing);
    expect(r.code).toBe(1);
    const json = await readJson(receipt);
    const partial = await readFile(`${out}.partial`);
    expect(json.error).toEqual({ message: r.stderr.replace(/^tenders: /, '').trim(), exitCode: 1 });
    expect(json.argv).toContain('https://service.test');
    expect(JSON.stringify(json)).not.toContain('pw');
    expect(json.query.baseUrl).toBe('https://service.test/');
    expect(json).toMatchObject({ complete: false, rowsWritten: 200, pages: 2, expected: { count: 500, capped: false }, partitionedBy: null });
    expect(json.partitions).toEqual([{ value: null, expected: { count: 500, capped: false }, pages: 2, complete: false }]);
    expect(json.output).toEqual({ file: out, committed: false, bytes: partial.length, sha256: sha256(partial) });

    // Resumed, the receipt hashes the kept prefix and what follows: the whole file.
    const resumed = await run(['export', '-f', 'ndjson', '-o', out, '--resume', '--receipt', receipt], pagedTenders(500));
    expect(resumed.code).toBe(0);
    const after = await readJson(receipt);
    const file = await readFile(out);
    expect(after).toMatchObject({ complete: true, error: null, rowsWritten: 500, resumed: { rows: 200, pages: 2 }, requests: 3, pages: 5 });
    expect(after.output).toEqual({ file: out, committed: true, bytes: file.length, sha256: sha256(file) });
  });

  it('records an interrupted export with its signal\'s exit code', async () => {
    const receipt = join(dir, 'interrupted.json');
    const stop = new AbortController();
    const interrupting: Responder = (request, n) => {
      if (n === 2) stop.abort(new InterruptedError('SIGINT'));
      return pagedTenders(300)(request, n);
    };
    const r = await run(['export', '-f', 'ndjson', '--receipt', receipt], interrupting, stop.signal);
    expect(r.code).toBe(130);
    const json = await readJson(receipt);
    expect(json.error).toEqual({ message: 'interrupted by SIGINT', exitCode: 130 });
    expect(json.complete).toBe(false);
    expect(json.output).toEqual({ stdout: true, committed: false, bytes: Buffer.byteLength(r.stdout), sha256: sha256(r.stdout) });
  });

  it('is a usage error, before any request, when FILE cannot be written, is the output or is -', async () => {
    const missing = join(dir, 'missing', 'r.json');
    const r = await run(['export', '--receipt', missing], pagedTenders(1));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`tenders: cannot write --receipt ${missing}: the directory ${join(dir, 'missing')} does not exist\n`);
    expect(r.client.requests).toHaveLength(0);
    expect((await run(['export', '--receipt', dir], pagedTenders(1))).stderr).toMatch(/^tenders: --receipt .* is a directory/);
    const output = join(dir, 'both.csv');
    const same = await run(['export', '-o', output, '--receipt', join(dir, '.', 'both.csv')], pagedTenders(1));
    expect(same.code).toBe(2);
    expect(same.stderr).toBe(`tenders: --receipt ${join(dir, '.', 'both.csv')} is the output file: name another file for the receipt\n`);
    const dash = await run(['export', '--receipt', '-'], pagedTenders(1));
    expect(dash.code).toBe(2);
    expect(dash.stderr).toBe('tenders: --receipt -: stdout carries the data; name a file, or /dev/stdout when the data goes to -o FILE\n');
    expect([...same.client.requests, ...dash.client.requests]).toHaveLength(0);
  });

  it('is written into a device or FIFO, never replacing it, and through a link to where it leads', async () => {
    const fifo = join(dir, 'receipt.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = readFile(fifo, 'utf8');
    expect((await run(['export', '-o', '/dev/null', '--receipt', fifo], pagedTenders(3))).code).toBe(0);
    expect(JSON.parse(await reader)).toMatchObject({ rowsWritten: 3, complete: true });
    expect((await lstat(fifo)).isFIFO()).toBe(true);
    const link = join(dir, 'receipt-link.json');
    await symlink('linked-receipt.json', link);
    expect((await run(['export', '-o', '/dev/null', '--receipt', link], pagedTenders(2))).code).toBe(0);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect((await readJson(join(dir, 'linked-receipt.json'))).rowsWritten).toBe(2);
  });

  it('replaces an older receipt', async () => {
    const receipt = join(dir, 'again.json');
    await writeFile(receipt, 'old');
    expect((await run(['export', '--receipt', receipt], pagedTenders(3))).code).toBe(0);
    expect((await readJson(receipt)).rowsWritten).toBe(3);
  });
});
