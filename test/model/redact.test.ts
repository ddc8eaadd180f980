import { describe, expect, it } from 'vitest';
import { withoutCredentials, withoutPasswords } from '../../src/model/redact.js';

describe('withoutPasswords', () => {
  it.each([
    ['postgres://alice:s3cret@db.example:5432/tenders?schema=team', 'postgres://alice@db.example:5432/tenders?schema=team'],
    ['--db=postgresql://alice:p%40ss%3Aword@db/t', '--db=postgresql://alice@db/t'],
    ['http://bob:pw@proxy:3128 and postgres://c:d@h/x', 'http://bob@proxy:3128 and postgres://c@h/x'],
    ['postgres://alice@db/tenders', 'postgres://alice@db/tenders'],
    ['https://host.example/notices/a@b:c', 'https://host.example/notices/a@b:c'],
    ['/home/alice/tenders.db', '/home/alice/tenders.db'],
    ['postgres://alice:p@ss@db/t', 'postgres://alice@db/t'],
    ['postgres://a@b:pw@db/t', 'postgres://a@b@db/t'],
    ['postgres://alice@db:5432/t?x=a@b', 'postgres://alice@db:5432/t?x=a@b'],
    ['postgres://u:p@[::1]:5432/db?mypassword=1', 'postgres://u@[::1]:5432/db?mypassword=1'],
    ['postgres://db/t?password=s3cret&schema=team', 'postgres://db/t?schema=team'],
    ['postgres://db/t?schema=team&password=s3cret', 'postgres://db/t?schema=team'],
    ['postgres://db/t?password=s3cret', 'postgres://db/t'],
    ['postgres://db/t?password=a&password=REAL&schema=x', 'postgres://db/t?schema=x'],
  ])('%s', (text, shown) => {
    expect(withoutPasswords(text)).toBe(shown);
  });
});

describe('withoutCredentials', () => {
  it.each([
    ['postgres://alice:s3cret@db/t', 'postgres://db/t'],
    ['https://TOKEN@api.example/v1', 'https://api.example/v1'],
    ['/home/alice/tenders.db', '/home/alice/tenders.db'],
    ['postgres://alice:p@ss@db/t?password=x', 'postgres://db/t'],
  ])('%s', (text, kept) => {
    expect(withoutCredentials(text)).toBe(kept);
  });
});

it('both take time in proportion to the text, however long an argument', () => {
  // Patterns tried from every letter took seconds on 100 000 characters: this test then runs into its time limit.
  for (const text of ['a'.repeat(200_000), `postgres://u:${'a'.repeat(200_000)}`, '://u:a'.repeat(40_000)]) {
    expect(withoutPasswords(text)).toBe(text);
    expect(withoutCredentials(text)).toBe(text);
  }
});
