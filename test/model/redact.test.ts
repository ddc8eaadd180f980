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
    ['postgres://db/t?password=s3cret&schema=team', 'postgres://db/t?schema=team'],
    ['postgres://db/t?schema=team&password=s3cret', 'postgres://db/t?schema=team'],
    ['postgres://db/t?password=s3cret', 'postgres://db/t'],
  ])('%s', (text, shown) => {
    expect(withoutPasswords(text)).toBe(shown);
  });
});

describe('withoutCredentials', () => {
  it.each([
    ['postgres://alice:s3cret@db/t', 'postgres://db/t'],
    ['https://TOKEN@api.example/v1', 'https://api.example/v1'],
    ['postgres://alice:p@ss@db/t?password=x', 'postgres://db/t'],
    ['/home/alice/tenders.db', '/home/alice/tenders.db'],
  ])('%s', (text, kept) => {
    expect(withoutCredentials(text)).toBe(kept);
  });
});
