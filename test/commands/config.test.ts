import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pagedTenders } from '../support/fake-client.js';
import { runInProcess } from '../support/run.js';
import { testDir } from '../support/test-context.js';

/** The config file of this test, named by TENDERS_CONFIG. */
const file = () => join(testDir(), 'conf', 'config.toml');

function writeConfig(text: string): void {
  mkdirSync(join(file(), '..'), { recursive: true });
  writeFileSync(file(), text);
}

/** The CLI in-process with this test's config file and, unless given, no TENDERS_BASE_URL. */
const tenders = (args: string[], env: Record<string, string | undefined> = {}) =>
  runInProcess(args, pagedTenders(3), { env: { TENDERS_BASE_URL: undefined, TENDERS_CONFIG: file(), TENDERS_STATE_DIR: join(testDir(), 'state'), ...env } });

const firstLine = (text: string) => text.split('\n')[0];

describe('settings in a run', () => {
  it('precedence: flag > environment variable > profile > top level > built-in default, said by --verbose', async () => {
    writeConfig('base-url = "http://top.test"\nretries = 1\ncolor = "never"\n\n[profile.p]\nbase-url = "http://profile.test"\nmax-wait = 7\n');
    const dry = (args: string[], env = {}) => tenders(['--dry-run', '--verbose', ...args, 'search', '-c', 'DEU'], env);
    expect(firstLine((await dry([])).stdout)).toBe('POST http://top.test/api/v1/tenders/search');
    const profile = await dry(['--profile', 'p']);
    expect(firstLine(profile.stdout)).toBe('POST http://profile.test/api/v1/tenders/search');
    expect(profile.stderr).toContain(`* --base-url http://profile.test: from [profile.p] of ${file()}\n`);
    expect(profile.stderr).toContain(`* --max-wait 7: from [profile.p] of ${file()}\n`);
    expect(profile.stderr).toContain(`* --retries 1: from ${file()}\n`);
    expect(firstLine((await dry([], { TENDERS_PROFILE: 'p' })).stdout)).toBe('POST http://profile.test/api/v1/tenders/search');
    const env = await dry(['--profile', 'p'], { TENDERS_BASE_URL: 'http://env.test', NO_COLOR: '1' });
    expect(firstLine(env.stdout)).toBe('POST http://env.test/api/v1/tenders/search');
    expect(env.stderr).toContain(`* --base-url: TENDERS_BASE_URL, before [profile.p] of ${file()}\n`);
    expect(env.stderr).toContain(`* --color: NO_COLOR, before ${file()}\n`);
    const flag = await dry(['--profile', 'p', '--base-url', 'http://flag.test', '--retries', '3'], { TENDERS_BASE_URL: 'http://env.test' });
    expect(firstLine(flag.stdout)).toBe('POST http://flag.test/api/v1/tenders/search');
    expect(flag.stderr).toContain(`* --retries: the flag, before ${file()}\n`);
    expect(flag.stderr).not.toContain('--retries 1');
  });

  it('a setting is used: retries = 0 makes the first 503 final; no file, no settings', async () => {
    writeConfig('retries = 0\n');
    const r = await runInProcess(['search', '-c', 'DEU'], () => ({ status: 503, json: { message: 'down' } }), { env: { TENDERS_CONFIG: file() } });
    expect(r.code).toBe(1);
    expect(r.client.requests).toHaveLength(1);
    const none = await tenders(['--dry-run', 'search'], { TENDERS_CONFIG: join(testDir(), 'absent.toml') });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^tenders: no service URL/);
  });

  it('a profile needs a file that has it', async () => {
    const none = await tenders(['--profile', 'p', '--dry-run', 'search'], { TENDERS_CONFIG: join(testDir(), 'absent.toml') });
    expect(none).toMatchObject({ code: 2, stderr: `tenders: --profile p: there is no config file (${join(testDir(), 'absent.toml')})\n` });
    writeConfig('timeout = 5\n');
    const missing = await tenders(['--dry-run', 'search'], { TENDERS_PROFILE: 'q' });
    expect(missing).toMatchObject({ code: 2, stderr: `tenders: TENDERS_PROFILE q: ${file()} has no [profile.q]: it has no [profile.NAME] table\n` });
  });

  it('a file that is not right is exit 2 naming it: TOML (line, column), unknown key (the closest), type (the rule), profiles', async () => {
    const cases: [string, string][] = [
      ['timeout = 5\nrate = [\n', `${file()}:3:1: not TOML:`],
      ['timout = 1\n', `${file()}: unknown setting 'timout': did you mean timeout?`],
      ['xyzzy = 1\n', `${file()}: unknown setting 'xyzzy': the settings are base-url, db, rate,`],
      ['[profile.p]\npager = "no"\n', `${file()}: [profile.p]: pager is true or false (the pager itself is TENDERS_PAGER or PAGER), not "no"`],
      ['rate = 0\n', `${file()}: rate is requests per second, a number above 0`],
      ['base-url = "ftp://u:pw@x.test"\n', `${file()}: base-url is the service's http:// or https:// URL, in quotes, not "ftp://u@x.test"`],
      ['color = ["never"]\n', `${file()}: color is "auto", "always" or "never", not a list`],
      ['profile = 1\n', `${file()}: profile is a table of profiles`],
      ['[profile]\nw = 1\n', `${file()}: profile.w is a table of settings`],
      ['[profile."a b"]\n', `${file()}: [profile.a b]: a profile's name is letters, digits, - and _`],
    ];
    for (const [text, message] of cases) {
      writeConfig(text);
      const r = await tenders(['--dry-run', 'search', '--base-url', 'http://x.test']);
      expect(r.code, text).toBe(2);
      expect(r.stderr, text).toContain(`tenders: ${message}`);
    }
  });
});

describe('a saved sync or watch runs from its name', () => {
  it('sync: the saved service, before the config file\'s base-url; the file\'s URL as written when it names that service', async () => {
    const env = { TENDERS_DB: join(testDir(), 'copy.db') };
    expect((await tenders(['sync', 'w', '-c', 'DEU'], { ...env, TENDERS_BASE_URL: 'http://service.test' })).code).toBe(0);
    writeConfig('base-url = "http://other.test"\n');
    const dry = await tenders(['sync', 'w', '--dry-run', '--verbose'], env);
    expect(firstLine(dry.stdout)).toBe('POST http://service.test/api/v1/tenders/search');
    expect(dry.stderr).toContain("* the base URL http://service.test: the service sync w saved (before the config file's base-url)\n");
    writeConfig('base-url = "http://me@service.test/"\n');
    const same = await tenders(['sync', 'w', '--dry-run', '--verbose'], env);
    expect(firstLine(same.stdout)).toBe('POST http://service.test/api/v1/tenders/search');
    expect(same.stderr).not.toContain('the service sync w saved');
    expect((await tenders(['sync', 'w'], env)).code).toBe(0);
  });

  it('watch: the saved service; none saved and none given is exit 2; a SQLite db in the file is the syncs\', not the watch\'s', async () => {
    writeConfig(`db = "${join(testDir(), 'copy.db')}"\n`);
    expect((await tenders(['watch', 'w', '-c', 'DEU'], { TENDERS_BASE_URL: 'http://service.test' })).code).toBe(0);
    expect(statSync(join(testDir(), 'state', 'w.watch')).isFile()).toBe(true);
    const dry = await tenders(['watch', 'w', '--dry-run']);
    expect(firstLine(dry.stdout)).toBe('POST http://service.test/api/v1/tenders/search');
    expect((await tenders(['watch', 'w'])).code).toBe(0);
    const never = await tenders(['watch', 'new']);
    expect(never.code).toBe(2);
    expect(never.stderr).toMatch(/^tenders: no service URL/);
  });
});

describe('tenders config', () => {
  it('set makes a private file in a private directory; list, get, unset and path', async () => {
    expect((await tenders(['config', 'set', 'db', 'postgres://me:pw@db.test/t'])).code).toBe(0);
    expect((await tenders(['config', 'set', 'max-wait', '30', '--profile', 'slow'])).code).toBe(0);
    expect(statSync(join(file(), '..')).mode & 0o777).toBe(0o700);
    expect(statSync(file()).mode & 0o777).toBe(0o600);
    expect(readFileSync(file(), 'utf8')).toBe('db = "postgres://me:pw@db.test/t"\n\n[profile.slow]\nmax-wait = 30\n');
    expect((await tenders(['config', 'list'])).stdout).toBe('db=postgres://me:***@db.test/t\nprofile.slow.max-wait=30\n');
    expect((await tenders(['config', 'get', 'max-wait', '--profile', 'slow'])).stdout).toBe('30\n');
    expect((await tenders(['config', 'get', 'db'], { TENDERS_PROFILE: 'slow' })).stdout).toBe('postgres://me:***@db.test/t\n');
    const unsetNothing = await tenders(['config', 'unset', 'rate', '--verbose']);
    expect(unsetNothing).toMatchObject({ code: 0, stderr: `rate was not set in ${file()}: nothing to do\n` });
    expect((await tenders(['config', 'unset', 'max-wait', '--profile', 'slow'])).code).toBe(0);
    const notSet = await tenders(['config', 'get', 'max-wait', '--profile', 'slow']);
    expect(notSet).toMatchObject({ code: 1, stderr: `tenders: max-wait is not set in ${file()} (nor in its [profile.slow])\n` });
    expect((await tenders(['config', 'path'])).stdout).toBe(`${file()}\n`);
    const noProfile = await tenders(['config', 'list', '--profile', 'nope']);
    expect(noProfile).toMatchObject({ code: 2, stderr: `tenders: ${file()} has no [profile.nope]: its profiles are slow\n` });
  });

  it('set writes through a symbolic link, and keeps the mode of the file it replaces', async () => {
    const real = join(testDir(), 'dotfiles', 'tenders.toml');
    mkdirSync(join(real, '..'), { recursive: true });
    writeFileSync(real, '# kept in git\n');
    chmodSync(real, 0o644);
    mkdirSync(join(file(), '..'), { recursive: true });
    symlinkSync(real, file());
    expect((await tenders(['config', 'set', 'pager', 'false'])).code).toBe(0);
    expect(readFileSync(real, 'utf8')).toBe('# kept in git\npager = false\n');
    expect(statSync(real).mode & 0o777).toBe(0o644);
  });

  it('refuses, writing nothing: an unknown key (the closest), a bad value (the rule), a bad profile name, --dry-run, no place', async () => {
    writeConfig('# mine\n');
    const cases: [string[], string][] = [
      [['config', 'set', 'time-out', '5'], `tenders: ${file()}: unknown setting 'time-out': did you mean timeout?\n`],
      [['config', 'set', 'timeout', '0'], "tenders: timeout is a whole number of milliseconds, 1 or more, not '0'\n"],
      [['config', 'set', 'rate', 'fast'], "tenders: rate is requests per second, a number above 0 and at most 10000 such as 2 or 0.5, not 'fast'\n"],
      [['config', 'set', 'base-url', 'ftp://me:pw@x.test'], "tenders: base-url is the service's http:// or https:// URL, in quotes, not 'ftp://me:***@x.test'\n"],
      [['config', 'set', 'color', 'never', '--profile', 'a.b'], "tenders: --profile a.b: a profile's name is letters, digits, - and _\n"],
      [['config', 'unset', 'colour'], `tenders: ${file()}: unknown setting 'colour': did you mean color?\n`],
      [['config', 'set', 'timeout', '5', '--dry-run'], 'tenders: --dry-run is for commands that send requests: config set sends none\n'],
    ];
    for (const [args, stderr] of cases) expect(await tenders(args), args.join(' ')).toMatchObject({ code: 2, stderr });
    const nowhere = await runInProcess(['config', 'path'], pagedTenders(0), { env: { HOME: undefined } });
    expect(nowhere).toMatchObject({ code: 2, stderr: 'tenders: no place for the config file: set HOME, XDG_CONFIG_HOME or TENDERS_CONFIG\n' });
    expect(readFileSync(file(), 'utf8')).toBe('# mine\n');
  });

  it('help config explains the file; a broken file stops neither help nor config', async () => {
    writeConfig('retries =\n');
    const help = await tenders(['help', 'config']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Precedence: flag > environment variable > profile > top level > built-in');
    expect((await tenders(['config', 'path'])).code).toBe(0);
  });

  it('edit opens $VISUAL, else $EDITOR, and says when the editor failed or left a file that is not right', async () => {
    const editor = join(testDir(), 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nprintf "timeout = 5\\n" >> "$1"\n');
    chmodSync(editor, 0o755);
    expect((await tenders(['config', 'edit'], { VISUAL: editor })).code).toBe(0);
    expect(readFileSync(file(), 'utf8')).toMatch(/^# tenders settings[\s\S]*\ntimeout = 5\n$/);
    const broken = await tenders(['config', 'edit'], { EDITOR: editor });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/^tenders: .*config\.toml:\d+:1: not TOML: /);
    const failing = await tenders(['config', 'edit'], { EDITOR: 'false' });
    expect(failing).toMatchObject({ code: 1, stderr: `tenders: the editor 'false' exited with 1: ${file()} is as it left it\n` });
  });
});
