import { spawnSync } from 'node:child_process';
import { constants } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import type { FileSystem } from '../../src/files/fs.js';
import { openOutput, resolveTarget } from '../../src/files/target.js';
import { errno } from '../support/failing-fs.js';
import { Capture } from '../support/io.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tenders-target-'));
});

const usage = (promise: Promise<unknown>) => expect(promise).rejects.toBeInstanceOf(UsageError);

describe('what -o names', () => {
  it('no -o and `-o -` are stdout', async () => {
    expect(await resolveTarget(undefined, false)).toEqual({ kind: 'stdout' });
    expect(await resolveTarget('-', false)).toEqual({ kind: 'stdout' });
  });

  it('an absent or regular file is written atomically where it is', async () => {
    expect(await resolveTarget(join(dir, 'new.csv'), true)).toEqual({ kind: 'file', path: join(dir, 'new.csv') });
    await writeFile(join(dir, 'old.csv'), 'old');
    expect(await resolveTarget(join(dir, 'old.csv'), true)).toEqual({ kind: 'file', path: join(dir, 'old.csv') });
  });

  it('a symbolic link is followed to where it leads, through chains and to files still to be made', async () => {
    await mkdir(join(dir, 'real'));
    await writeFile(join(dir, 'real', 'data.csv'), 'x');
    await symlink('real/data.csv', join(dir, 'rel-link.csv'));
    await symlink(join(dir, 'rel-link.csv'), join(dir, 'chain.csv'));
    await symlink('real/later.csv', join(dir, 'dangling.csv'));
    expect(await resolveTarget(join(dir, 'rel-link.csv'), false)).toEqual({ kind: 'file', path: join(dir, 'real', 'data.csv') });
    expect(await resolveTarget(join(dir, 'chain.csv'), false)).toEqual({ kind: 'file', path: join(dir, 'real', 'data.csv') });
    expect(await resolveTarget(join(dir, 'dangling.csv'), false)).toEqual({ kind: 'file', path: join(dir, 'real', 'later.csv') });
  });

  it('a device or FIFO is written straight through; --resume with one is a usage error', async () => {
    expect(await resolveTarget('/dev/null', false)).toEqual({ kind: 'device', path: '/dev/null', fifo: false });
    await symlink('/dev/null', join(dir, 'null-link'));
    expect(await resolveTarget(join(dir, 'null-link'), false)).toEqual({ kind: 'device', path: join(dir, 'null-link'), fifo: false });
    const fifo = join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(await resolveTarget(fifo, false)).toEqual({ kind: 'device', path: fifo, fifo: true });
    await expect(resolveTarget(fifo, true)).rejects.toThrow(/--resume needs a file: -o .*fifo is a device or FIFO/);
  });

  it('a descriptor of this process (/dev/stdout redirected to a file) is appended to, never replaced', async () => {
    const log = join(dir, 'redirected.log');
    await writeFile(log, 'kept\n');
    const shell = await fsp.open(log, 'a'); // what `>> redirected.log` gives the process
    try {
      for (const name of [`/proc/self/fd/${shell.fd}`, `/dev/fd/${shell.fd}`]) {
        const target = await resolveTarget(name, false);
        expect(target).toEqual({ kind: 'device', path: name, fifo: false, append: true });
        await expect(resolveTarget(name, true)).rejects.toThrow(`--resume needs a file: -o ${name} is a descriptor of this process`);
        const out = await openOutput(target, { stdout: new Capture(), stdoutIsTTY: false, signal: new AbortController().signal });
        await out.write(`via ${name}\n`);
        await out.finish();
      }
      expect(await readFile(log, 'utf8')).toBe(`kept\nvia /proc/self/fd/${shell.fd}\nvia /dev/fd/${shell.fd}\n`);
      expect((await fsp.readdir(dir)).filter((name) => name.startsWith('redirected.log'))).toEqual(['redirected.log']);
    } finally {
      await shell.close();
    }
  });

  it('-o /dev/stdout on a socket stdout (a systemd journal, a parent process) is stdout', async () => {
    const socketStat = { isDirectory: () => false, isFile: () => false, isSocket: () => true, isFIFO: () => false };
    const fs = { ...fsp, stat: async () => socketStat } as unknown as FileSystem;
    for (const name of ['/dev/stdout', '/dev/fd/1', '/proc/self/fd/1']) expect(await resolveTarget(name, false, fs)).toEqual({ kind: 'stdout' });
    await expect(resolveTarget('/run/some.sock', false, fs)).rejects.toThrow(/is a socket/);
    await expect(resolveTarget('/dev/stdout', false, fs, '--receipt')).rejects.toThrow(/is a socket/);
  });

  it('refuses before any request what cannot work: a directory, a trailing slash, a missing or non-directory parent, a socket', async () => {
    await expect(resolveTarget(dir, false)).rejects.toThrow(`-o ${dir} is a directory: give a file name inside it`);
    await expect(resolveTarget(`${dir}/`, false)).rejects.toThrow(/names a directory/);
    await expect(resolveTarget('nowhere/', false)).rejects.toThrow(/names a directory/);
    await expect(resolveTarget(join(dir, 'missing', 'x.csv'), false)).rejects.toThrow(/the directory .*missing does not exist/);
    await writeFile(join(dir, 'plain'), '');
    await usage(resolveTarget(join(dir, 'plain', 'x.csv'), false));
    await symlink('loop-b', join(dir, 'loop-a'));
    await symlink('loop-a', join(dir, 'loop-b'));
    await expect(resolveTarget(join(dir, 'loop-a'), false)).rejects.toThrow(/too many levels of symbolic links/);
    const socket = join(dir, 'sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      await expect(resolveTarget(socket, false)).rejects.toThrow(/is a socket/);
    } finally {
      server.close();
    }
  });

  it('refuses a directory it may not write or that is read-only (as root, access() is what tells)', async () => {
    for (const [code, words] of [
      ['EACCES', /the directory .* is not writable \(permission denied\)/],
      ['EROFS', /the directory .* is on a read-only file system/],
      ['EIO', /cannot write -o .*: EIO: failed/],
    ] as const) {
      const fs: FileSystem = { ...fsp, access: async () => Promise.reject(errno(code)) };
      await expect(resolveTarget(join(dir, 'x.csv'), false, fs)).rejects.toThrow(words);
    }
    const denied: FileSystem = { ...fsp, stat: async () => Promise.reject(errno('EACCES')) };
    await expect(resolveTarget(join(dir, 'x.csv'), false, denied)).rejects.toThrow(/x\.csv is not writable \(permission denied\)/);
  });
});

describe('opening a device or FIFO', () => {
  const signal = new AbortController().signal;
  const open = (path: string, fifo: boolean, more: { signal?: AbortSignal; onWait?: (line: string) => void } = {}) =>
    openOutput({ kind: 'device', path, fifo }, { stdout: new Capture(), stdoutIsTTY: false, signal, ...more });
  const mkfifo = (name: string) => {
    const path = join(dir, name);
    expect(spawnSync('mkfifo', [path]).status).toBe(0);
    return path;
  };

  it('writes through a FIFO whose reader is there, leaving it a FIFO', async () => {
    const fifo = mkfifo('through');
    const reader = await fsp.open(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const out = await open(fifo, true, { onWait: () => expect.fail('a reader is there') });
    expect(out).toMatchObject({ kind: 'stream', terminal: false });
    await out.write('a,b\n');
    await out.finish();
    expect(await reader.readFile('utf8')).toBe('a,b\n');
    await reader.close();
    expect((await fsp.lstat(fifo)).isFIFO()).toBe(true);
  });

  it('waits for a FIFO\'s reader, saying so, and writes once one comes', async () => {
    const fifo = mkfifo('later');
    let reading: Promise<string> | undefined;
    const out = await open(fifo, true, {
      onWait: (line) => {
        expect(line).toBe(`waiting for a reader of ${fifo} (a FIFO)…`);
        reading = readFile(fifo, 'utf8');
      },
    });
    await out.write('x\n');
    await out.finish();
    expect(await reading).toBe('x\n');
  });

  it('Ctrl-C ends the wait for a reader that never comes, and frees the waiting thread', async () => {
    const fifo = mkfifo('never');
    const controller = new AbortController();
    const opening = open(fifo, true, { signal: controller.signal, onWait: () => controller.abort(new Error('interrupted by SIGINT')) });
    await expect(opening).rejects.toThrow('interrupted by SIGINT');
    await expect(open(fifo, true, { signal: controller.signal })).rejects.toThrow('interrupted by SIGINT');
  });

  it('a full device fails in words; one that is gone too', async () => {
    const full = await open('/dev/full', false);
    await expect(full.write('x'.repeat(70_000)).then(() => full.finish())).rejects.toThrow('disk full while writing /dev/full');
    await full.abandon(false);
    await expect(open(join(dir, 'gone'), false)).rejects.toThrow(/^cannot write .*gone: ENOENT/);
    await expect(open(join(dir, 'gone-fifo'), true)).rejects.toThrow(/^cannot write .*gone-fifo: ENOENT/);
  });
});
