import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStdout, invocationOf, type ColorMode, type Env } from '../src/io.js';
import { pagedTenders } from './support/fake-client.js';
import { memoryIO } from './support/io.js';
import { runInProcess } from './support/run.js';
import { testDir } from './support/test-context.js';

/** Whether stdout gets colour, for a terminal or a pipe, an environment and --color. */
function colour(tty: boolean, env: Env, mode: ColorMode = 'auto'): boolean {
  const { io } = memoryIO({ stdoutTTY: tty, stderrTTY: tty, columns: 80, env });
  io.colorMode = mode;
  return io.colorStdout();
}

describe('the colour decision', () => {
  it.each([
    ['a terminal', true, {}, 'auto', true],
    ['a pipe', false, {}, 'auto', false],
    ['NO_COLOR on a terminal', true, { NO_COLOR: '1' }, 'auto', false],
    ['an empty NO_COLOR (not set, as no-color.org says)', true, { NO_COLOR: '' }, 'auto', true],
    ['FORCE_COLOR into a pipe', false, { FORCE_COLOR: '1' }, 'auto', true],
    ['FORCE_COLOR=0 on a terminal', true, { FORCE_COLOR: '0' }, 'auto', false],
    ['FORCE_COLOR=false on a terminal', true, { FORCE_COLOR: 'false' }, 'auto', false],
    ['NO_COLOR over FORCE_COLOR', false, { NO_COLOR: '1', FORCE_COLOR: '1' }, 'auto', false],
    ['TERM=dumb on a terminal', true, { TERM: 'dumb' }, 'auto', false],
    ['--color always into a pipe, whatever the environment', false, { NO_COLOR: '1', FORCE_COLOR: '0', TERM: 'dumb' }, 'always', true],
    ['--color never on a terminal, whatever the environment', true, { FORCE_COLOR: '1' }, 'never', false],
  ] as const)('%s', (_what, tty, env, mode, expected) => {
    expect(colour(tty, env, mode)).toBe(expected);
  });

  it('animation needs a terminal on stderr that is not dumb, a width, and stdout not a pipe', () => {
    const animate = (opts: Parameters<typeof memoryIO>[0]) => memoryIO(opts).io.canAnimate();
    expect(animate({ stderrTTY: true, columns: 80 })).toBe(true);
    expect(animate({ stderrTTY: false, columns: 80 })).toBe(false);
    expect(animate({ stderrTTY: true, columns: 80, env: { TERM: 'dumb' } })).toBe(false);
    expect(animate({ stderrTTY: true, columns: 0 })).toBe(false);
    expect(animate({ stderrTTY: true, columns: 80, stdoutPipe: true })).toBe(false);
  });

  it('--color reaches the table: bold headers into a pipe with always, none on a terminal with never', async () => {
    const always = await runInProcess(['search', '-f', 'table', '--color', 'always'], pagedTenders(2), { env: { NO_COLOR: '1' } });
    expect(always.stdout.startsWith('\u001b[1mid\u001b[22m')).toBe(true);
    const never = await runInProcess(['search', '--color', 'never', '--no-pager'], pagedTenders(2), { stdoutTTY: true, columns: 80 });
    expect(never.stdout).not.toContain('\u001b[');
  });
});

describe('invocationOf: the words that ran the CLI, for the commands it suggests', () => {
  const env = { PATH: '/usr/local/bin:/usr/bin' };
  it.each([
    ['from PATH', '/usr/bin/tenders', env, ['tenders']],
    ['by path below the working directory', '/src/tenders/bin/tenders.js', env, ['node', 'bin/tenders.js']],
    ['by path elsewhere', '/opt/tenders/bin/tenders.js', env, ['node', '/opt/tenders/bin/tenders.js']],
    ['a link not on PATH', '/src/tenders/tenders', env, ['./tenders']],
    ['through npx', '/src/tenders/node_modules/.bin/tenders', { ...env, npm_command: 'exec', npm_lifecycle_script: "'tenders'" }, ['npx', 'tenders']],
    ['by a program npx runs (npx vitest)', '/src/tenders/bin/tenders.js', { ...env, npm_command: 'exec', npm_lifecycle_script: 'vitest' }, ['node', 'bin/tenders.js']],
    ['without a script', undefined, env, ['tenders']],
  ])('%s', (_, script, environment, words) => {
    expect(invocationOf(script, environment, '/src/tenders')).toEqual(words);
  });
});

describe('FileStdout: stdout that is a file or /dev/null, written as Node writes a file', () => {
  const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

  it('writes each chunk whole and in order, and calls back after write() returned', async () => {
    const file = join(testDir(), 'out.txt');
    const fd = openSync(file, 'w');
    try {
      const out = new FileStdout(fd);
      const calls: string[] = [];
      expect(out.write('a,', () => calls.push('first'))).toBe(true);
      expect(out.write(Buffer.from('b,')), 'no callback').toBe(true);
      expect(out.write('ü', 'utf8', (err) => calls.push(`third ${String(err)}`))).toBe(true);
      expect(calls).toEqual([]);
      await settled();
      expect(calls).toEqual(['first', 'third null']);
      const finished: string[] = [];
      out.on('finish', () => finished.push('finish'));
      out.end('!', () => finished.push('callback'));
      await settled();
      expect(finished).toEqual(['finish', 'callback']);
      expect(out.writable).toBe(false);
      expect(readFileSync(file, 'utf8')).toBe('a,b,ü!');
    } finally {
      closeSync(fd);
    }
  });

  it('goes on after a partial write', async () => {
    const written: string[] = [];
    const out = new FileStdout(9, (_fd, bytes, offset) => {
      written.push(Buffer.from(bytes.subarray(offset, offset + 2)).toString());
      return Math.min(2, bytes.length - offset);
    });
    out.write('abcde');
    expect(written.join('')).toBe('abcde');
  });

  it('a failed write fails its callback, emits one error, and fails every later write without writing', async () => {
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    let attempts = 0;
    const out = new FileStdout(9, () => {
      attempts++;
      throw full;
    });
    const errors: unknown[] = [];
    out.on('error', (err) => errors.push(err));
    const results: unknown[] = [];
    expect(out.write('a', (err) => results.push(err))).toBe(false);
    expect(out.write('b', (err) => results.push(err))).toBe(false);
    await settled();
    expect(results).toEqual([full, full]);
    expect(errors).toEqual([full]);
    expect(attempts).toBe(1);
  });
});
