import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { postgres, POSTGRES_MISSING } from '../support/postgres.js';
import { useSandbox } from '../support/sandbox.js';
import { testDir } from '../support/test-context.js';

const sb = useSandbox({ size: 40, seed: 5 });
/** Another service, with the same data: the saved one must be told apart from it. */
const other = useSandbox({ size: 40, seed: 5 });

/** This test's config file, where HOME puts it: ~/.config/tenders/config.toml. */
const configFile = () => join(testDir(), 'home', '.config', 'tenders', 'config.toml');

function writeConfig(text: string, file = configFile()): string {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
}

/** The CLI with no TENDERS_BASE_URL: the service comes from the saved query or the config file, if at all. */
const tenders = (args: string[], env: Record<string, string | undefined> = {}) => runCli(args, undefined, { env });

describe('a saved query runs from its name alone', () => {
  it('sync (SQLite): a later run without any base URL reaches the saved service; the config file\'s base-url gives way to it', async () => {
    const db = join(testDir(), 'copy.db');
    const first = await tenders(['sync', 'fra', '-c', 'FRA', '--base-url', sb.url, '--db', db]);
    expect(first.code, first.stderr).toBe(0);
    const before = sb.requests.length;
    const again = await tenders(['sync', 'fra', '--db', db, '--verbose']);
    expect(again.code, again.stderr).toBe(0);
    expect(sb.requests.length).toBeGreaterThan(before);
    expect(again.stderr).not.toContain('no service URL');

    writeConfig(`base-url = "${other.url}"\n`);
    const fromOther = other.requests.length;
    const saved = await tenders(['sync', 'fra', '--db', db, '--verbose']);
    expect(saved.code, saved.stderr).toBe(0);
    expect(other.requests.length).toBe(fromOther);
    expect(saved.stderr).toContain(`* the base URL ${sb.url.replace(/\/$/, '')}: the service sync fra saved (before the config file's base-url)`);

    // An explicit other service is still refused, by flag or environment, unless --reset.
    const flag = await tenders(['sync', 'fra', '--db', db, '--base-url', other.url]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/^tenders: sync fra copies http:\/\/127\.0\.0\.1:\d+, not http:\/\/127\.0\.0\.1:\d+: leave --base-url and TENDERS_BASE_URL out/);
    const env = await tenders(['sync', 'fra', '--db', db], { TENDERS_BASE_URL: other.url });
    expect(env.code).toBe(2);
  });

  it('sync: a name never run, with no base URL anywhere, is still exit 2: no service URL', async () => {
    const r = await tenders(['sync', 'never', '--db', join(testDir(), 'copy.db')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tenders: no service URL/);
  });

  it('watch (file-kept): a later run, and its --dry-run, reach the saved service without a base URL', async () => {
    const first = await tenders(['watch', 'w', '-c', 'DEU', '--base-url', sb.url]);
    expect(first.code, first.stderr).toBe(0);
    writeConfig(`base-url = "${other.url}"\n`);
    const dry = await tenders(['watch', 'w', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.split('\n')[0]).toBe(`POST ${sb.url.replace(/\/$/, '')}/api/v1/tenders/search`);
    const before = sb.requests.length;
    const run = await tenders(['watch', 'w']);
    expect(run.code, run.stderr).toBe(0);
    expect(sb.requests.length).toBeGreaterThan(before);
    const refused = await tenders(['watch', 'w', '--base-url', other.url]);
    expect(refused.code).toBe(2);
    const reset = await tenders(['watch', 'w', '--base-url', other.url, '--reset']);
    expect(reset.code, reset.stderr).toBe(0);
  });

  describe.skipIf(POSTGRES_MISSING)('kept in PostgreSQL', () => {
    it('sync into a postgres:// copy named by the config file runs from its name', async () => {
      const url = await (await postgres()).createDatabase('cfgsync');
      writeConfig(`db = "${url}"\n`);
      const first = await tenders(['sync', 'fra', '-c', 'FRA', '--base-url', sb.url]);
      expect(first.code, first.stderr).toBe(0);
      const before = sb.requests.length;
      const again = await tenders(['sync', 'fra', '--verbose']);
      expect(again.code, again.stderr).toBe(0);
      expect(sb.requests.length).toBeGreaterThan(before);
      // The password of the file's URL is never printed.
      expect(again.stderr).toContain('* --db postgres://tenders_test:***@');
      expect(again.stderr).not.toContain(new URL(url).password);
    });

    it('watch kept in a postgres:// copy (TENDERS_DB) runs from its name', async () => {
      const url = await (await postgres()).createDatabase('cfgwatch');
      const first = await tenders(['watch', 'w', '-c', 'DEU', '--base-url', sb.url], { TENDERS_DB: url });
      expect(first.code, first.stderr).toBe(0);
      const before = sb.requests.length;
      const again = await tenders(['watch', 'w'], { TENDERS_DB: url });
      expect(again.code, again.stderr).toBe(0);
      expect(sb.requests.length).toBeGreaterThan(before);
    });
  });
});

describe('the config file', () => {
  const firstLine = (stdout: string) => stdout.split('\n')[0];

  it('precedence: flag > environment variable > profile > top level > built-in default', async () => {
    writeConfig(`base-url = "http://top.test"\ntimeout = 1000\n\n[profile.p]\nbase-url = "http://profile.test"\n`);
    const dry = (args: string[], env = {}) => tenders(['--dry-run', '--verbose', ...args, 'search', '-c', 'DEU'], env);
    expect(firstLine((await dry([])).stdout)).toBe('POST http://top.test/api/v1/tenders/search');
    const profile = await dry(['--profile', 'p']);
    expect(firstLine(profile.stdout)).toBe('POST http://profile.test/api/v1/tenders/search');
    // The profile has no timeout: the top level's.
    expect(profile.stderr).toContain(`* --timeout 1000: from ${configFile()}\n`);
    expect(profile.stderr).toContain(`* --base-url http://profile.test: from [profile.p] of ${configFile()}\n`);
    expect(firstLine((await dry([], { TENDERS_PROFILE: 'p' })).stdout)).toBe('POST http://profile.test/api/v1/tenders/search');
    const env = await dry(['--profile', 'p'], { TENDERS_BASE_URL: 'http://env.test' });
    expect(firstLine(env.stdout)).toBe('POST http://env.test/api/v1/tenders/search');
    expect(env.stderr).toContain(`* --base-url: TENDERS_BASE_URL, before [profile.p] of ${configFile()}\n`);
    const flag = await dry(['--profile', 'p', '--base-url', 'http://flag.test', '--timeout', '5'], { TENDERS_BASE_URL: 'http://env.test' });
    expect(firstLine(flag.stdout)).toBe('POST http://flag.test/api/v1/tenders/search');
    expect(flag.stderr).toContain(`* --timeout: the flag, before ${configFile()}\n`);
  });

  it('a setting takes effect: retries = 0 from a profile makes the first 503 final', async () => {
    writeConfig('[profile.once]\nretries = 0\n');
    sb.setFaults({ errorEvery: 1, errorStatus: 503 });
    sb.clearRequests();
    const r = await tenders(['--profile', 'once', 'search', '-c', 'DEU', '--base-url', sb.url]);
    expect(r.code).toBe(1);
    expect(sb.requests.length).toBe(1);
  });

  it('TENDERS_CONFIG names another file; XDG_CONFIG_HOME moves the default', async () => {
    const elsewhere = writeConfig('base-url = "http://elsewhere.test"\n', join(testDir(), 'other.toml'));
    const r = await tenders(['--dry-run', 'search'], { TENDERS_CONFIG: elsewhere });
    expect(firstLine(r.stdout)).toBe('POST http://elsewhere.test/api/v1/tenders/search');
    const xdg = join(testDir(), 'xdg');
    expect((await tenders(['config', 'path'], { XDG_CONFIG_HOME: xdg })).stdout).toBe(`${join(xdg, 'tenders', 'config.toml')}\n`);
    expect((await tenders(['config', 'path'])).stdout).toBe(`${configFile()}\n`);
  });

  it('config set keeps comments, order and quoting; makes the directory 700 and the file 600; never loosens a mode', async () => {
    const made = await tenders(['config', 'set', 'timeout', '60000']);
    expect(made.code, made.stderr).toBe(0);
    expect(statSync(join(configFile(), '..')).mode & 0o777).toBe(0o700);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(readFileSync(configFile(), 'utf8')).toBe('timeout = 60000\n');

    writeConfig(
      '# my settings\nbase-url = \'http://a.test\'   # the office service\n\n# at work\n[profile.work]\nrate = 2 # be gentle\n',
    );
    chmodSync(configFile(), 0o640);
    for (const args of [
      ['config', 'set', 'base-url', 'http://b.test'],
      ['config', 'set', 'retries', '3'],
      ['config', 'set', 'rate', '0.5', '--profile', 'work'],
      ['config', 'set', 'pager', 'false', '--profile', 'work'],
      ['config', 'set', 'color', 'never', '--profile', 'ci'],
    ]) {
      const r = await tenders(args);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(readFileSync(configFile(), 'utf8')).toBe(
      '# my settings\nbase-url = "http://b.test"   # the office service\nretries = 3\n\n# at work\n[profile.work]\nrate = 0.5 # be gentle\npager = false\n\n[profile.ci]\ncolor = "never"\n',
    );
    expect(statSync(configFile()).mode & 0o777).toBe(0o640);
    const unset = await tenders(['config', 'unset', 'rate', '--profile', 'work']);
    expect(unset.code, unset.stderr).toBe(0);
    expect(readFileSync(configFile(), 'utf8')).toContain('[profile.work]\npager = false\n');
    expect((await tenders(['config', 'get', 'pager', '--profile', 'work'])).stdout).toBe('false\n');
    expect((await tenders(['config', 'get', 'base-url'])).stdout).toBe('http://b.test\n');
  });

  it('list and get never print a password: ***', async () => {
    writeConfig('db = "postgres://me:s3cret@db.test/tenders"\n[profile.w]\nbase-url = "https://u:tok3n@w.test"\n');
    const list = await tenders(['config', 'list']);
    expect(list.stdout).toBe('db=postgres://me:***@db.test/tenders\nprofile.w.base-url=https://u:***@w.test\n');
    const get = await tenders(['config', 'get', 'db']);
    expect(get.stdout).toBe('postgres://me:***@db.test/tenders\n');
    const inProfile = await tenders(['--profile', 'w', 'config', 'list']);
    expect(inProfile.stdout).toBe('base-url=https://u:***@w.test\ndb=postgres://me:***@db.test/tenders\n');
    expect(`${list.stdout}${get.stdout}${inProfile.stdout}`).not.toMatch(/s3cret|tok3n/);
  });

  it('bad input is exit 2 naming the file (line and column, closest key, rule), and nothing is written', async () => {
    const text = 'timeout = 1000\nretries = \n';
    writeConfig(text);
    const broken = await tenders(['--dry-run', 'search', '--base-url', sb.url]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toBe(`tenders: ${configFile()}:2:11: not TOML: invalid value\n`);
    const set = await tenders(['config', 'set', 'timeout', '5']);
    expect(set.code).toBe(2);
    expect(readFileSync(configFile(), 'utf8')).toBe(text);

    writeConfig('timout = 1000\n');
    const unknown = await tenders(['--dry-run', 'search', '--base-url', sb.url]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(`tenders: ${configFile()}: unknown setting 'timout': did you mean timeout?\n`);
    const get = await tenders(['config', 'get', 'retires']);
    expect(get.code).toBe(2);
    expect(get.stderr).toBe(`tenders: ${configFile()}: unknown setting 'retires': did you mean retries?\n`);

    writeConfig('[profile.w]\ntimeout = "60000"\n');
    const type = await tenders(['--dry-run', 'search', '--base-url', sb.url]);
    expect(type.code).toBe(2);
    expect(type.stderr).toBe(`tenders: ${configFile()}: [profile.w]: timeout is a whole number of milliseconds, 1 or more, not "60000"\n`);
    const value = await tenders(['config', 'set', 'retries', 'many']);
    expect(value.code).toBe(2);
    expect(value.stderr).toBe("tenders: retries is a whole number from 0 to 100, not 'many'\n");
    expect(readFileSync(configFile(), 'utf8')).toBe('[profile.w]\ntimeout = "60000"\n');
    writeConfig('[profile.w]\ntimeout = 60000\n');
    const profile = await tenders(['--profile', 'x', '--dry-run', 'search', '--base-url', sb.url]);
    expect(profile.code).toBe(2);
    expect(profile.stderr).toBe(`tenders: --profile x: ${configFile()} has no [profile.x]: its profiles are w\n`);

    // A key set as a dotted key is not edited behind the user's back.
    writeConfig('profile.w.timeout = 5\n');
    const dotted = await tenders(['config', 'set', 'timeout', '6', '--profile', 'w']);
    expect(dotted.code).toBe(2);
    expect(dotted.stderr).toMatch(/tenders config edit/);
    expect(readFileSync(configFile(), 'utf8')).toBe('profile.w.timeout = 5\n');
  });

  it('config edit opens $VISUAL (else $EDITOR) on the file, made first with the settings in comments, and checks it', async () => {
    const editor = join(testDir(), 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nprintf \'retries = 1\\n\' >> "$1"\n');
    chmodSync(editor, 0o755);
    const r = await tenders(['config', 'edit'], { EDITOR: editor, VISUAL: undefined });
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(configFile(), 'utf8');
    expect(text).toMatch(/^# tenders settings/);
    expect(text.endsWith('retries = 1\n')).toBe(true);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect((await tenders(['config', 'get', 'retries'])).stdout).toBe('1\n');
    writeFileSync(editor, '#!/bin/sh\nprintf \'retries = \\n\' >> "$1"\n');
    const broken = await tenders(['config', 'edit'], { VISUAL: editor });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/config\.toml:\d+:\d+: not TOML/);
  });

  it('a broken file does not stop help or config itself', async () => {
    writeConfig('retries = \n');
    expect((await tenders(['help', 'config'])).code).toBe(0);
    expect((await tenders(['config', 'path'])).code).toBe(0);
  });
});
