import { spawnSync } from 'node:child_process';
import * as fsp from 'node:fs/promises';
import { chmod, lstat, mkdtemp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { RunError } from '../../src/errors.js';
import { AtomicFileOutput } from '../../src/files/atomic-file.js';
import { createExclusive, openRegular, readRegular, writeFileAtomic } from '../../src/files/exclusive-file.js';
import type { FileSystem } from '../../src/files/fs.js';
import { releaseHeldLocksSync } from '../../src/files/held-locks.js';
import { acquireLock } from '../../src/files/lock.js';
import { errno, failingWrites } from '../support/failing-fs.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tenders-exclusive-'));
});

/** The pid of a process that has ended. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid;

describe('exclusive creation', () => {
  it('never writes through a link planted at the name: the link is replaced, its target untouched', async () => {
    const victim = join(dir, 'victim');
    await writeFile(victim, 'precious');
    await symlink(victim, join(dir, 'out.csv.partial'));
    const handle = await createExclusive(join(dir, 'out.csv.partial'));
    await handle.writeFile('data');
    await handle.close();
    expect(await readFile(victim, 'utf8')).toBe('precious');
    expect((await lstat(join(dir, 'out.csv.partial'))).isFile()).toBe(true);
  });

  it('reopens only regular files: a link or a FIFO is refused', async () => {
    await writeFile(join(dir, 'victim'), 'precious');
    await symlink(join(dir, 'victim'), join(dir, 'link'));
    await expect(openRegular(join(dir, 'link'), true)).rejects.toThrow('is a symbolic link');
    expect(spawnSync('mkfifo', [join(dir, 'fifo')]).status).toBe(0);
    await expect(openRegular(join(dir, 'fifo'), false)).rejects.toThrow('is not a regular file');
    expect(await readRegular(join(dir, 'link'))).toBeUndefined();
    expect(await readRegular(join(dir, 'victim'))).toBe('precious');
  });

  it('a resumed partial that became a link is refused, not truncated through', async () => {
    await writeFile(join(dir, 'victim'), 'precious');
    await symlink(join(dir, 'victim'), join(dir, 'x.csv.partial'));
    await expect(AtomicFileOutput.open(join(dir, 'x.csv'), 3)).rejects.toThrow(/cannot write .*x\.csv\.partial: .* is a symbolic link/);
    expect(await readFile(join(dir, 'victim'), 'utf8')).toBe('precious');
  });
});

describe('the mode of a replaced file', () => {
  it('is kept by an export and a receipt (also while the export is written), not by a link or a fresh file', async () => {
    const file = join(dir, 'private.csv');
    await writeFile(file, 'old');
    await chmod(file, 0o604); // a mode no umask gives a fresh file
    const out = await AtomicFileOutput.open(file);
    expect((await lstat(`${file}.partial`)).mode & 0o777).toBe(0o604);
    await out.write('new');
    await out.finish();
    expect((await lstat(file)).mode & 0o777).toBe(0o604);
    await writeFile(join(dir, 'receipt.json'), '{}');
    await chmod(join(dir, 'receipt.json'), 0o602);
    await writeFileAtomic(join(dir, 'receipt.json'), '{"a":1}');
    expect((await lstat(join(dir, 'receipt.json'))).mode & 0o777).toBe(0o602);
    await symlink(file, join(dir, 'link.json'));
    await writeFileAtomic(join(dir, 'link.json'), '{}');
    await writeFileAtomic(join(dir, 'fresh.json'), '{}');
    const fresh = (await lstat(join(dir, 'fresh.json'))).mode & 0o777;
    expect(fresh).not.toBe(0o604);
    expect((await lstat(join(dir, 'link.json'))).mode & 0o777).toBe(fresh);
  });
});

describe('writeFileAtomic', () => {
  it('replaces the file, through no planted link at the name or at its temporary', async () => {
    const victims = [join(dir, 'v1'), join(dir, 'v2')];
    for (const v of victims) await writeFile(v, 'precious');
    await symlink(victims[0]!, join(dir, 'state.json'));
    await symlink(victims[1]!, join(dir, 'state.json.tmp'));
    await writeFileAtomic(join(dir, 'state.json'), '{"a":1}', { sync: true });
    expect(await readFile(join(dir, 'state.json'), 'utf8')).toBe('{"a":1}');
    expect((await lstat(join(dir, 'state.json'))).isFile()).toBe(true);
    for (const v of victims) expect(await readFile(v, 'utf8')).toBe('precious');
    expect((await readdir(dir)).sort()).toEqual(['state.json', 'v1', 'v2']);
  });

  it.each([
    ['ENOSPC', /^disk full while writing .*state\.json: free some space and run again$/],
    ['EROFS', /^read-only file system: cannot write .*state\.json$/],
    ['EACCES', /^permission denied writing .*state\.json$/],
    ['EDQUOT', /^disk quota exceeded while writing .*state\.json$/],
  ])('a write failing with %s is said in words and leaves the old file and no temporary', async (code, words) => {
    await writeFile(join(dir, 'state.json'), 'old');
    const failure = writeFileAtomic(join(dir, 'state.json'), 'new', { fs: failingWrites(code) });
    await expect(failure).rejects.toBeInstanceOf(RunError);
    await expect(failure).rejects.toThrow(words);
    expect(await readFile(join(dir, 'state.json'), 'utf8')).toBe('old');
    expect(await readdir(dir)).toEqual(['state.json']);
  });
});

describe('one writer per file', () => {
  const target = () => join(dir, 'out.csv');

  it('holds FILE.lock with our pid until released; a second writer is refused, naming the pid', async () => {
    const release = await acquireLock(target());
    const holder = JSON.parse(await readFile(`${target()}.lock`, 'utf8')) as { pid: number; host: string; started: string };
    expect(holder).toEqual({ pid: process.pid, host: hostname(), started: expect.any(String) });
    await expect(acquireLock(target())).rejects.toThrow(
      new RegExp(`out\\.csv is being written by another tenders process \\(pid ${process.pid}, since .*\\): wait for it to finish, or remove .*out\\.csv\\.lock`),
    );
    await release();
    await release();
    expect(await readdir(dir)).toEqual([]);
    await (await acquireLock(target()))();
  });

  it('takes over a lock whose process is gone, or one left by an earlier process with our pid, and says so', async () => {
    const lines: string[] = [];
    for (const pid of [deadPid(), process.pid]) {
      await writeFile(`${target()}.lock`, JSON.stringify({ pid, host: hostname(), started: '2024-01-01T00:00:00.000Z' }));
      const release = await acquireLock(target(), { log: (line) => lines.push(line) });
      expect(JSON.parse(await readFile(`${target()}.lock`, 'utf8'))).toMatchObject({ pid: process.pid });
      await release();
    }
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^took over .*out\.csv\.lock: pid \d+ that held it \(since 2024-01-01T00:00:00.000Z\) is no longer running$/);
  });

  it('respects a lock from another host, a live process, or what is not a lock file', async () => {
    await writeFile(`${target()}.lock`, JSON.stringify({ pid: deadPid(), host: 'elsewhere', started: 'x' }));
    await expect(acquireLock(target())).rejects.toThrow(/another tenders process \(pid \d+ on elsewhere, since x\)/);
    await writeFile(`${target()}.lock`, JSON.stringify({ pid: process.ppid, host: hostname(), started: 'y' }));
    await expect(acquireLock(target())).rejects.toThrow(`(pid ${process.ppid}, since y)`);
    await writeFile(`${target()}.lock`, 'garbage');
    await expect(acquireLock(target())).rejects.toThrow(/is locked by .*out\.csv\.lock, which is not a tenders lock file/);
  });

  it('cannot be made to write through a link planted as the lock', async () => {
    await writeFile(join(dir, 'victim'), 'precious');
    await symlink(join(dir, 'victim'), `${target()}.lock`);
    await expect(acquireLock(target())).rejects.toThrow(/not a tenders lock file/);
    expect(await readFile(join(dir, 'victim'), 'utf8')).toBe('precious');
  });

  it('a lock that cannot be written is said in words; held locks go at a sudden exit', async () => {
    await expect(acquireLock(target(), { fs: failingWrites('ENOSPC') })).rejects.toThrow(/^disk full while writing .*out\.csv\.lock/);
    const denied: FileSystem = { ...fsp, open: async () => Promise.reject(errno('EACCES')) };
    await expect(acquireLock(target(), { fs: denied })).rejects.toThrow(/^permission denied writing .*out\.csv\.lock$/);
    expect(await readdir(dir)).toEqual([]);
    await acquireLock(target());
    releaseHeldLocksSync();
    expect(await readdir(dir)).toEqual([]);
  });
});
