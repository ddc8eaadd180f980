import { describe, expect, it } from 'vitest';
import { setInText, unsetInText } from '../../src/run/config-text.js';

describe('config set and unset edit the text, line by line', () => {
  it('replaces a value on its line, keeping the key as written, the spacing and the comment', () => {
    expect(setInText('"timeout"   =   5   # slow\n', undefined, 'timeout', '60000')).toBe('"timeout"   =   60000   # slow\n');
    expect(setInText("base-url = 'http://a.test#x' # hash in the value\n", undefined, 'base-url', '"http://b.test"')).toBe(
      'base-url = "http://b.test" # hash in the value\n',
    );
  });

  it('adds a top-level setting after the last one, else above the first table and the comments that lead it', () => {
    expect(setInText('# mine\nretries = 1\n\n[profile.a]\nrate = 2\n', undefined, 'timeout', '5')).toBe('# mine\nretries = 1\ntimeout = 5\n\n[profile.a]\nrate = 2\n');
    expect(setInText('# the a profile\n[profile.a]\nrate = 2\n', undefined, 'timeout', '5')).toBe('timeout = 5\n\n# the a profile\n[profile.a]\nrate = 2\n');
    expect(setInText('', undefined, 'timeout', '5')).toBe('timeout = 5\n');
    expect(setInText('# only a comment\n', undefined, 'timeout', '5')).toBe('# only a comment\ntimeout = 5\n');
  });

  it('adds to a profile table (spelt with spaces or quotes), or adds the table at the end', () => {
    expect(setInText('[ profile . "a" ]\n\n[profile.b]\n', 'profile.a', 'rate', '2')).toBe('[ profile . "a" ]\nrate = 2\n\n[profile.b]\n');
    expect(setInText('timeout = 5\n\n\n', 'profile.new', 'rate', '2')).toBe('timeout = 5\n\n[profile.new]\nrate = 2\n');
    // The same key at the top level is another setting.
    expect(setInText('rate = 1\n[profile.a]\n', 'profile.a', 'rate', '2')).toBe('rate = 1\n[profile.a]\nrate = 2\n');
  });

  it('keeps CRLF line ends', () => {
    expect(setInText('# x\r\nretries = 1\r\n', undefined, 'retries', '2')).toBe('# x\r\nretries = 2\r\n');
  });

  it('unset removes the line of the key in its table only; undefined when there is none', () => {
    expect(unsetInText('rate = 1\n[profile.a]\nrate = 2 # b\nretries = 3\n', 'profile.a', 'rate')).toBe('rate = 1\n[profile.a]\nretries = 3\n');
    expect(unsetInText('rate = 1\n', 'profile.a', 'rate')).toBeUndefined();
  });
});
