import { spawnSync } from 'node:child_process';
import * as fsp from 'node:fs/promises';
import { lstat, mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/api/errors.js';
import { execute } from '../../src/cli.js';
import type { FileSystem } from '../../src/files/fs.js';
import { FakeClient, pagedTenders, type Responder } from '../support/fake-client.js';
import { errno, failingWrites } from '../support/failing-fs.js';
import { memoryIO } from '../support/io.js';
import { BASE_ENV, runInProcess } from '../support/run.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tenders-walk-output-'));
});

describe('-o targets, in-process', () => {
  it('`-o -` is stdout: a table on a terminal, data in a pipe', async () => {
    const piped = await runInProcess(['export', '-o', '-', '-f', 'ndjson'], new FakeClient(pagedTenders(3)));
    expect(piped.code).toBe(0);
    expect(piped.stdout.trim().split('\n')).toHaveLength(3);
    const shown = await runInProcess(['search', '-o', '-'], new FakeClient(pagedTenders(3)), { stdoutTTY: true, columns: 80, env: { NO_COLOR: '1' } });
    expect(shown.stdout).toMatch(/^id\s+title\n/);
    const resume = await runInProcess(['export', '-o', '-', '--resume'], new FakeClient(pagedTenders(3)));
    expect(resume).toMatchObject({ code: 2, stderr: 'tenders: --resume continues an export into a file: use it with -o FILE\n' });
  });

  it.each([
    ['a directory', () => dir, /^tenders: -o .* is a directory: give a file name inside it, e\.g\. .*tenders\.csv\n$/],
    ['a name ending in /', () => `${dir}/sub/`, /^tenders: -o .*sub\/ names a directory: give a file name, e\.g\. .*sub\/tenders\.csv\n$/],
    ['a missing directory', () => join(dir, 'missing', 'x.csv'), /^tenders: cannot write -o .*x\.csv: the directory .*missing does not exist\n$/],
  ])('refuses %s with exit 2 before any request', async (_what, file, line) => {
    const client = new FakeClient(pagedTenders(3));
    const r = await runInProcess(['export', '-o', file()], client);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(line);
    expect(client.requests).toHaveLength(0);
  });

  it('refuses a read-only or unwritable directory with exit 2 before any request', async () => {
    for (const [code, words] of [['EROFS', 'is on a read-only file system'], ['EACCES', 'is not writable (permission denied)']] as const) {
      const client = new FakeClient(pagedTenders(3));
      const fs: FileSystem = { ...fsp, access: async () => Promise.reject(errno(code)) };
      const r = await runInProcess(['export', '-o', join(dir, 'x.csv')], client, { fs });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`tenders: cannot write -o ${join(dir, 'x.csv')}: the directory ${dir} ${words}\n`);
      expect(client.requests).toHaveLength(0);
    }
  });

  it('writes through a device, never replacing it; --resume with one is exit 2', async () => {
    await symlink('/dev/null', join(dir, 'null'));
    const r = await runInProcess(['export', '-o', join(dir, 'null')], new FakeClient(pagedTenders(150)));
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(await readdir(dir)).toEqual(['null']);
    const client = new FakeClient(pagedTenders(3));
    const resumed = await runInProcess(['export', '-o', join(dir, 'null'), '--resume'], client);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(/--resume needs a file: -o .*null is a device or FIFO, written straight through/);
    expect(client.requests).toHaveLength(0);
  });

  it('follows a link to its target and writes there atomically, the link left in place', async () => {
    await mkdir(join(dir, 'real'));
    await symlink('real/out.ndjson', join(dir, 'latest.ndjson'));
    const r = await runInProcess(['export', '-o', join(dir, 'latest.ndjson'), '-f', 'ndjson'], new FakeClient(pagedTenders(3)));
    expect(r.code).toBe(0);
    expect((await lstat(join(dir, 'latest.ndjson'))).isSymbolicLink()).toBe(true);
    expect((await readFile(join(dir, 'real', 'out.ndjson'), 'utf8')).split('\n')).toHaveLength(4);
    expect((await readdir(dir)).sort()).toEqual(['latest.ndjson', 'real']);
    expect(await readdir(join(dir, 'real'))).toEqual(['out.ndjson']);
  });

  it('never writes through links planted as the partial, the state or its temporary', async () => {
    const victims = ['v1', 'v2', 'v3'].map((v) => join(dir, v));
    for (const v of victims) await writeFile(v, 'precious');
    const file = join(dir, 'out.csv');
    await symlink(victims[0]!, `${file}.partial`);
    await symlink(victims[1]!, `${file}.resume.json`);
    await symlink(victims[2]!, `${file}.resume.json.tmp`);
    const r = await runInProcess(['export', '-o', file, '--resume'], new FakeClient(pagedTenders(250)));
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/no interrupted export of .*out\.csv to resume; starting afresh/);
    for (const v of victims) expect(await readFile(v, 'utf8')).toBe('precious');
    expect((await readdir(dir)).sort()).toEqual(['out.csv', 'v1', 'v2', 'v3']);
    expect((await readFile(file, 'utf8')).trim().split('\n')).toHaveLength(251);
  });

  it('does not resume through a partial that a link replaced', async () => {
    const file = join(dir, 'out.csv');
    const fs = failingWrites('ENOSPC', { suffix: 'out.csv.partial', after: 2 });
    const failed = await runInProcess(['export', '-o', file, '-n', '10'], new FakeClient(pagedTenders(50)), { fs });
    expect(failed.code).toBe(1);
    await fsp.rename(`${file}.partial`, join(dir, 'victim'));
    await symlink(join(dir, 'victim'), `${file}.partial`);
    const victim = await readFile(join(dir, 'victim'), 'utf8');
    const r = await runInProcess(['export', '-o', file, '-n', '10', '--resume'], new FakeClient(pagedTenders(50)));
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/out\.csv\.partial is not a regular file \(a link\?\), so it is not continued; starting afresh/);
    expect(await readFile(join(dir, 'victim'), 'utf8')).toBe(victim);
    expect((await readFile(file, 'utf8')).trim().split('\n')).toHaveLength(51);
  });
});

describe('full disk, read-only file system, permission denied, in-process', () => {
  it.each([
    ['ENOSPC', 'disk full while writing', ': free some space and run again'],
    ['EROFS', 'read-only file system: cannot write', ''],
    ['EACCES', 'permission denied writing', ''],
  ])('%s on the partial file: one line in words, exit 1, the previous FILE intact, nothing left beside it', async (code, words, tail) => {
    const file = join(dir, 'x.csv');
    await writeFile(file, 'previous export\n');
    const r = await runInProcess(['export', '-o', file], new FakeClient(pagedTenders(250)), { fs: failingWrites(code, { suffix: 'x.csv.partial' }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`tenders: ${words} ${file}.partial${tail}\n`);
    expect(await readFile(file, 'utf8')).toBe('previous export\n');
    expect(await readdir(dir)).toEqual(['x.csv']);
  });

  it('a disk that fills up after some pages keeps them for --resume, and no temporary state', async () => {
    const file = join(dir, 'x.csv');
    const fs = failingWrites('ENOSPC', { suffix: 'x.csv.resume.json.tmp', after: 2 });
    const r = await runInProcess(['export', '-o', file, '-n', '10'], new FakeClient(pagedTenders(50)), { fs });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^tenders: disk full while writing .*x\.csv\.resume\.json: free some space and run again; the 20 tenders written so far are kept in .*x\.csv\.partial: run the same command with --resume to continue\n$/,
    );
    expect((await readdir(dir)).sort()).toEqual(['x.csv.partial', 'x.csv.resume.json']);
    const resumed = await runInProcess(['export', '-o', file, '-n', '10', '--resume'], new FakeClient(pagedTenders(50)));
    expect(resumed).toMatchObject({ code: 0, stderr: '' });
    expect(await readFile(file, 'utf8')).toBe((await runInProcess(['export', '-n', '10'], new FakeClient(pagedTenders(50)))).stdout);
  });

  it('a rename that is refused is said in words, the previous FILE intact', async () => {
    const file = join(dir, 'x.csv');
    await writeFile(file, 'previous export\n');
    const fs: FileSystem = { ...fsp, rename: async (from, to) => (String(to) === file ? Promise.reject(errno('EPERM')) : fsp.rename(from, to)) };
    const r = await runInProcess(['export', '-o', file], new FakeClient(pagedTenders(5)), { fs });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tenders: permission denied writing .*x\.csv; the 5 tenders written so far are kept in/);
    expect(await readFile(file, 'utf8')).toBe('previous export\n');
  });
});

describe('one writer per FILE, in-process', () => {
  it('a second run on the same FILE exits 1 at once naming the holder; the lock goes with the first', async () => {
    const file = join(dir, 'x.csv');
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const slow: Responder = async (request, n) => {
      entered();
      await gate;
      return pagedTenders(150)(request, n);
    };
    const first = runInProcess(['export', '-o', file], new FakeClient(slow));
    await inside;
    const client = new FakeClient(pagedTenders(3));
    const second = await runInProcess(['export', '-o', file, '-c', 'DEU'], client);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      new RegExp(`^tenders: .*x\\.csv is being written by another tenders process \\(pid ${process.pid}, since [^)]+\\): wait for it to finish, or remove .*x\\.csv\\.lock if that process is not running\\n$`),
    );
    expect(client.requests).toHaveLength(0);
    open();
    expect((await first).code).toBe(0);
    expect(await readdir(dir)).toEqual(['x.csv']);
  });

  it('the lock goes on failure and on interruption too', async () => {
    const file = join(dir, 'x.csv');
    const failing = await runInProcess(['export', '-o', file], new FakeClient(() => ({ status: 503, json: { message: 'down' } })));
    expect(failing.code).toBe(1);
    const controller = new AbortController();
    const t = memoryIO({ env: BASE_ENV });
    const interrupted = execute(['export', '-o', file], t.io, {
      signal: controller.signal,
      createClient: async () =>
        new FakeClient((request, n) => {
          if (n === 2) controller.abort(Object.assign(new Error('interrupted by SIGINT'), { name: 'InterruptedError' }));
          return pagedTenders(500)(request, n);
        }),
    });
    expect(await interrupted).toBe(1);
    expect((await readdir(dir)).filter((name) => name.endsWith('.lock'))).toEqual([]);
  });

  it('takes over a lock left by a process that is gone, saying so with --verbose', async () => {
    const file = join(dir, 'x.csv');
    const pid = spawnSync(process.execPath, ['-e', '0']).pid;
    await writeFile(`${file}.lock`, JSON.stringify({ pid, host: hostname(), started: '2024-05-01T03:10:00.000Z' }));
    const r = await runInProcess(['export', '-o', file, '-v'], new FakeClient(pagedTenders(3)));
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`* took over ${file}.lock: pid ${pid} that held it (since 2024-05-01T03:10:00.000Z) is no longer running\n`);
    expect(await readdir(dir)).toEqual(['x.csv']);
  });
});

describe('terminal safety, in-process', () => {
  const hostile = { title: '\u001b[31mRED\u001b[0m \u001b]0;pwned\u0007 \u009b2J \u007f \u202eevil' };
  const client = () => new FakeClient(pagedTenders(2, () => hostile));

  it.each([
    ['csv', 'T-1,\\x1b[31mRED\\x1b[0m \\x1b]0;pwned\\x07 \\x9b2J \\x7f \\u202eevil\n'],
    ['ndjson', '{"id":"T-1","title":"\\u001b[31mRED\\u001b[0m \\u001b]0;pwned\\u0007 \\u009b2J \\u007f \\u202eevil"}\n'],
    ['json', '[\n{"id":"T-1","title":"\\u001b[31mRED\\u001b[0m \\u001b]0;pwned\\u0007 \\u009b2J \\u007f \\u202eevil"}'],
  ])('%s on a terminal spells control characters out; in a pipe the bytes are the service\'s', async (format, shown) => {
    const tty = await runInProcess(['export', '-f', format, '--no-header'], client(), { stdoutTTY: true, columns: 80 });
    expect(tty.code).toBe(0);
    expect(tty.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(tty.stdout.startsWith(shown)).toBe(true);
    if (format !== 'csv') expect(format === 'json' ? JSON.parse(tty.stdout) : JSON.parse(tty.stdout.split('\n')[0]!)).toMatchObject(format === 'json' ? [hostile, hostile] : hostile);
    const piped = await runInProcess(['export', '-f', format, '--no-header'], client());
    expect(piped.stdout).toContain(format === 'csv' ? hostile.title : JSON.stringify(hostile.title));
  });

  it('the table removes them', async () => {
    const r = await runInProcess(['search'], client(), { stdoutTTY: true, columns: 80, env: { NO_COLOR: '1' } });
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(r.stdout).toContain('RED');
  });

  it('text from the service in error lines, warnings and hints is spelled out, one line', async () => {
    const error = await runInProcess(['export'], new FakeClient(({ path }) => {
      throw new ServiceError(422, path, 'bad \u001b]0;pwned\u0007\nfilter\u009b', '');
    }));
    expect(error.code).toBe(1);
    expect(error.stderr).toBe('tenders: the service answered 422 to POST /api/v1/tenders/search: bad \\x1b]0;pwned\\x07\\nfilter\\x9b\n');
    const hint = await runInProcess(['search', '-n', '1'], new FakeClient(() => ({ json: { tenders: [{ id: 'a' }], page: { nextCursor: 'c\u001b[2J\n', total: null } } })), {
      stderrTTY: true,
    });
    expect(hint.stderr).toContain("Next page:\ntenders search -n 1 --cursor $'c\\x1b[2J\\n' --shown 1\n");
    const garbage = await runInProcess(['export'], new FakeClient(() => ({ json: 'not a page' })), { stderrTTY: true });
    expect(garbage.stderr.split('\n')).toHaveLength(2);
  });
});
