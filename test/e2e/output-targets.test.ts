import { spawn, spawnSync } from 'node:child_process';
import { chmod, lstat, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../support/sandbox.js';
import { testDir } from '../support/test-context.js';
import { ndjson, runCli, runShell } from '../support/cli.js';
import { whenDir } from '../support/dir-events.js';

// Every file these tests make or name lives in a fresh temporary directory:
// devices are nodes made there (or links to /dev/null and /dev/full), so even
// a CLI that replaced what -o names could not touch a real device.

const PATH = '/api/v1/tenders/search';
const sb = useSandbox({ size: 2500, seed: 8 });
let dir: string;
beforeEach(() => {
  dir = testDir();
});

const requestsSince = (before: number) => sb.requests.slice(before);
const isRoot = process.getuid?.() === 0;

/** A device node in the temporary directory when we may make one, else a link to the real device. */
function device(name: string, major: number, minor: number, real: string): string {
  const path = join(dir, name);
  if (spawnSync('mknod', [path, 'c', String(major), String(minor)]).status !== 0) spawnSync('ln', ['-s', real, path]);
  return path;
}

describe('a directory that takes no new files (/proc, /sys) is an unusable target', () => {
  it.each([
    ['/proc/x.csv', 'the directory /proc does not take new files'],
    ['/sys/x.csv', 'the directory /sys is not writable (permission denied)'],
  ])('-o %s is exit 2 naming the user\'s path, never the lock file, before any request', async (file, why) => {
    for (const command of [['export'], ['watch', 'w']]) {
      const before = sb.requests.length;
      const r = await runCli([...command, '-o', file], sb.url, { env: { TENDERS_STATE_DIR: dir } });
      expect(r).toMatchObject({ code: 2, stdout: '', stderr: `tenders: cannot write -o ${file}: ${why}\n` });
      expect(sb.requests.length).toBe(before);
    }
  });
});

describe('devices, FIFOs and links are written through or followed, never replaced', () => {
  it('-o /dev/stdout when stdout is a socket (as a parent process or a journal gives it) is stdout', async () => {
    // runCli's child gets a socket pair as stdout, as systemd's journal does.
    const r = await runCli(['export', '-c', 'DEU', '-f', 'ndjson', '--max', '5', '-o', '/dev/stdout'], sb.url);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(ndjson(r.stdout)).toHaveLength(5);
  });

  it('a null device is written through and stays a device; nothing is left beside it', async () => {
    const nul = device('null', 1, 3, '/dev/null');
    const r = await runCli(['export', '-o', nul], sb.url);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect((await stat(nul)).isCharacterDevice()).toBe(true);
    expect(await readdir(dir)).toEqual(['null']);
  });

  it('a full device fails in words, exit 1, stays a device, and leaves no partial or state', async () => {
    const full = device('full', 1, 7, '/dev/full');
    const r = await runCli(['export', '-o', full], sb.url);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`tenders: disk full while writing ${full}: free some space and run again\n`);
    expect((await stat(full)).isCharacterDevice()).toBe(true);
    expect(await readdir(dir)).toEqual(['full']);
  });

  it('--resume with a device is a usage error before any request', async () => {
    const nul = device('null', 1, 3, '/dev/null');
    const before = sb.requests.length;
    const r = await runCli(['export', '-o', nul, '--resume'], sb.url);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`tenders: --resume needs a file: -o ${nul} is a device or FIFO, written straight through\n`);
    expect(requestsSince(before)).toEqual([]);
  });

  it('a FIFO is written straight into for its reader and stays a FIFO', async () => {
    const fifo = join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
    let read = '';
    reader.stdout.setEncoding('utf8').on('data', (d: string) => (read += d));
    const closed = new Promise((resolve) => reader.on('close', resolve));
    const r = await runCli(['export', '-f', 'ndjson', '-c', 'DEU', '-o', fifo], sb.url);
    const stillFifo = (await lstat(fifo)).isFIFO();
    if (!stillFifo) reader.kill(); // replaced: its reader would wait for a writer forever
    await closed;
    expect(stillFifo).toBe(true);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(ndjson(read)).toEqual(sb.truth(PATH, { buyerCountries: ['DEU'] }));
    expect(await readdir(dir)).toEqual(['fifo']);
  });

  it('Ctrl-C while waiting for a FIFO\'s reader ends the run with 130', async () => {
    const fifo = join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    let said = '';
    const r = await runCli(['export', '-o', fifo, '-v'], sb.url, {
      onSpawn: (child) =>
        child.stderr!.on('data', (d: Buffer) => {
          if (said.includes('waiting for a reader')) return;
          said += d.toString();
          if (said.includes('waiting for a reader')) child.kill('SIGINT');
        }),
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toBe(`waiting for a reader of ${fifo} (a FIFO)…\ntenders: interrupted by SIGINT\n`);
    expect((await lstat(fifo)).isFIFO()).toBe(true);
  });

  it('Ctrl-C stops an export into a FIFO whose reader does not read', async () => {
    const fifo = join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = spawn('sh', ['-c', `exec sleep 30 < '${fifo}'`], { stdio: 'ignore' });
    try {
      let requests = 0;
      const r = await runCli(['export', '-f', 'ndjson', '-o', fifo, '-v'], sb.url, {
        onSpawn: (child) =>
          child.stderr!.on('data', (d: Buffer) => {
            // The pipe holds under two pages: by the third request the writer waits on the reader.
            const before = requests;
            requests += d.toString().split('* POST').length - 1;
            if (before < 3 && requests >= 3) child.kill('SIGINT');
          }),
      });
      expect(r.code).toBe(130);
      expect(r.stderr).toMatch(/tenders: interrupted by SIGINT\n$/);
    } finally {
      reader.kill();
    }
  });

  it('a link is followed: the export lands in its target, the link stays, partial and state sit beside the target', async () => {
    await mkdir(join(dir, 'real'));
    const link = join(dir, 'latest.csv');
    await symlink(join(dir, 'real', 'export.csv'), link);
    sb.setFaults({ failAfter: 3, failStatus: 503 });
    const failed = await runCli(['export', '-o', link, '--retries', '0'], sb.url);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`kept in ${join(dir, 'real', 'export.csv.partial')}: run the same command with --resume`);
    expect((await readdir(join(dir, 'real'))).sort()).toEqual(['export.csv.partial', 'export.csv.resume.json']);
    expect((await readdir(dir)).sort()).toEqual(['latest.csv', 'real']);
    sb.setFaults({});
    const resumed = await runCli(['export', '-o', link, '--resume'], sb.url);
    expect(resumed).toMatchObject({ code: 0, stderr: '' });
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readFile(link, 'utf8')).toBe((await runCli(['export'], sb.url)).stdout);
    expect(await readdir(join(dir, 'real'))).toEqual(['export.csv']);
  });

  it('-o - is stdout, and no file named -', async () => {
    const r = await runCli(['export', '-f', 'ndjson', '-c', 'FRA', '-o', '-'], sb.url, { cwd: dir });
    expect(r.code).toBe(0);
    expect(ndjson(r.stdout)).toEqual(sb.truth(PATH, { buyerCountries: ['FRA'] }));
    expect(await readdir(dir)).toEqual([]);
  });

  it('-o /dev/stdout and -o /dev/stderr redirected into files are appended to as the shell says, never replaced', async () => {
    await writeFile(join(dir, 'out.log'), 'kept\n');
    await writeFile(join(dir, 'err.log'), 'kept\n');
    const args = 'export -f ndjson -c FRA --max 3';
    const r = await runShell(`$TENDERS ${args} -o /dev/stdout >> out.log && $TENDERS ${args} -o /dev/stderr 2>> err.log`, sb.url, { cwd: dir });
    expect(r.code).toBe(0);
    const three = sb.truth(PATH, { buyerCountries: ['FRA'] }).slice(0, 3);
    for (const log of ['out.log', 'err.log']) {
      const [kept, ...rows] = (await readFile(join(dir, log), 'utf8')).trimEnd().split('\n');
      expect(kept).toBe('kept');
      expect(rows.map((row) => JSON.parse(row) as unknown)).toEqual(three);
    }
    expect((await readdir(dir)).sort()).toEqual(['err.log', 'out.log']);
  });
});

describe('links planted beside FILE', () => {
  it.each([[[]], [['--resume']]])('are never written through (flags %j): the victim is unchanged', async (flags) => {
    const file = join(dir, 'out.csv');
    const victims = ['victim-partial', 'victim-state', 'victim-tmp'].map((v) => join(dir, v));
    for (const v of victims) await writeFile(v, 'root:x:0:0:root:/root:/bin/sh\n');
    await symlink(victims[0]!, `${file}.partial`);
    await symlink(victims[1]!, `${file}.resume.json`);
    await symlink(victims[2]!, `${file}.resume.json.tmp`);
    const r = await runCli(['export', '-c', 'DEU', '-o', file, ...flags], sb.url);
    expect(r.code).toBe(0);
    for (const v of victims) expect(await readFile(v, 'utf8')).toBe('root:x:0:0:root:/root:/bin/sh\n');
    expect(await readFile(file, 'utf8')).toBe((await runCli(['export', '-c', 'DEU'], sb.url)).stdout);
    expect((await readdir(dir)).sort()).toEqual(['out.csv', 'victim-partial', 'victim-state', 'victim-tmp']);
  });
});

describe('a target that cannot work fails before the first request, exit 2, one line', () => {
  it.each([
    ['a directory', () => dir, 'is a directory: give a file name inside it'],
    ['a name ending in /', () => `${dir}/new/`, 'names a directory: give a file name'],
    ['a missing directory', () => join(dir, 'missing', 'x.csv'), 'does not exist'],
    ['a file as directory', () => join(dir, 'plain', 'x.csv'), 'is not a directory'],
  ])('%s', async (_what, file, words) => {
    await writeFile(join(dir, 'plain'), '');
    const before = sb.requests.length;
    const r = await runCli(['export', '-o', file()], sb.url);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tenders: [^\n]+\n$/);
    expect(r.stderr).toContain(words);
    expect(requestsSince(before)).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual(['plain']);
  });

  it.skipIf(!isRoot)('a directory the user may not write (run as nobody)', async () => {
    await chmod(dir, 0o755);
    const before = sb.requests.length;
    const r = await runCli(['export', '-o', join(dir, 'x.csv')], sb.url, { uid: 65534, gid: 65534 });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`tenders: cannot write -o ${join(dir, 'x.csv')}: the directory ${dir} is not writable (permission denied)\n`);
    expect(requestsSince(before)).toEqual([]);
  });
});

describe('one writer per FILE', () => {
  it('a second run exits 1 at once naming the first one\'s pid; Ctrl-C releases the lock', async () => {
    const file = join(dir, 'x.csv');
    sb.setFaults({ latencyMs: 40 });
    let first: { pid?: number; kill(signal: NodeJS.Signals): boolean } | undefined;
    let stop = () => {};
    const locked = new Promise<void>((resolve) => (stop = whenDir(dir, () => lstat(`${file}.lock`).then(() => true), resolve)));
    const running = runCli(['export', '-o', file], sb.url, { onSpawn: (child) => (first = child) });
    await locked;
    const before = sb.requests.length;
    const second = await runCli(['export', '-o', file, '-c', 'DEU'], sb.url);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      new RegExp(`^tenders: ${file} is being written by another tenders process \\(pid ${first!.pid}, since [^)]+\\): wait for it to finish, or remove ${file}\\.lock if that process is not running\\n$`),
    );
    expect(requestsSince(before).filter((q) => JSON.stringify(q.body).includes('DEU'))).toEqual([]);
    stop();
    first!.kill('SIGINT');
    const stopped = await running;
    expect(stopped.code).toBe(130);
    expect(await readdir(dir)).not.toContain('x.csv.lock');
  });

  it('a lock left by a process that is gone is taken over, said with --verbose', async () => {
    const file = join(dir, 'x.csv');
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    await writeFile(`${file}.lock`, JSON.stringify({ pid: dead, host: hostname(), started: '2024-05-01T03:10:00.000Z' }));
    const r = await runCli(['export', '-c', 'DEU', '-o', file, '-v'], sb.url);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`* took over ${file}.lock: pid ${dead} that held it (since 2024-05-01T03:10:00.000Z) is no longer running\n`);
    expect(await readdir(dir)).toEqual(['x.csv']);
    const quiet = await runCli(['export', '-c', 'DEU', '-o', file], sb.url);
    expect(quiet).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('--receipt FILE is resolved as -o is', () => {
  it('a device is written through and stays one; /dev/stdout prints the receipt when the data went to -o', async () => {
    const nul = device('null', 1, 3, '/dev/null');
    const r = await runCli(['export', '-c', 'FRA', '-o', join(dir, 'x.csv'), '--receipt', nul], sb.url);
    expect(r.code).toBe(0);
    expect((await lstat(nul)).isFile()).toBe(false);
    // Through a pipe (a child's stdout from Node is a socket, which cannot be opened by name).
    const printed = await runShell('$TENDERS export -c FRA -o y.csv --receipt /dev/stdout | cat', sb.url, { cwd: dir });
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.stdout)).toMatchObject({ complete: true, output: { file: 'y.csv', committed: true } });
    expect((await readdir(dir)).sort()).toEqual(['null', 'x.csv', 'y.csv']);
  });
});

describe('a replaced FILE', () => {
  it('keeps its permissions: an export the user made private stays private', async () => {
    const file = join(dir, 'private.csv');
    await writeFile(file, 'previous export\n');
    await chmod(file, 0o600);
    const r = await runCli(['export', '-c', 'FRA', '-o', file], sb.url);
    expect(r.code).toBe(0);
    expect(await readFile(file, 'utf8')).not.toBe('previous export\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });
});

describe('a full disk on the file side', () => {
  // A one-block tmpfs mounted inside the temporary directory, when we may mount one.
  it.skipIf(!isRoot)('says so in words, exit 1, the previous FILE intact, nothing else left', async (ctx) => {
    const disk = join(dir, 'disk');
    await mkdir(disk);
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8k', 'tmpfs', disk]).status !== 0) return ctx.skip();
    try {
      const file = join(disk, 'x.csv');
      await writeFile(file, 'previous export\n');
      const r = await runCli(['export', '-o', file], sb.url);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`tenders: disk full while writing ${file}.partial: free some space and run again\n`);
      expect(await readFile(file, 'utf8')).toBe('previous export\n');
      expect(await readdir(disk)).toEqual(['x.csv']);
    } finally {
      expect(spawnSync('umount', [disk]).status).toBe(0);
      await rm(disk, { recursive: true });
    }
  });
});
